package devsync

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// TestTwoDevicesShareOneFolder: what each device stores, forgets and links
// reaches the other; a vault's memories from before joining are kept and
// merged.
func TestTwoDevicesShareOneFolder(t *testing.T) {
	clearEnv(t)
	folder := filepath.Join(t.TempDir(), "sync")
	a := newDevice(t, "a", "", false)
	old := a.store("the staging database listens on port 5433")
	a.setUp(folder, true)
	b := newDevice(t, "b", "", false)
	b.store("the laptop is called tern")
	b.setUp(folder, false)

	x := a.store("the deploy key lives in the team vault")
	y := b.store("the release train leaves on thursdays")
	mergeInTurn(a, b, a)
	if diff := sameLists(a.memories(), b.memories()); diff != "" {
		t.Fatalf("devices differ:\n%s", diff)
	}
	want := []string{"the deploy key lives in the team vault", "the laptop is called tern",
		"the release train leaves on thursdays", "the staging database listens on port 5433"}
	if got := a.liveTexts(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("live memories %q, want %q", got, want)
	}

	if _, err := b.v.Forget(x, false); err != nil {
		t.Fatal(err)
	}
	if _, err := a.v.Forget(old, true); err != nil {
		t.Fatal(err)
	}
	rel, err := a.v.Link(vault.LinkRequest{Subject: "tern", Predicate: "runs", Object: "debian"})
	if err != nil {
		t.Fatal(err)
	}
	mergeInTurn(b, a)
	if diff := sameLists(a.memories(), b.memories()); diff != "" {
		t.Fatalf("devices differ after forget, shred, link:\n%s", diff)
	}
	wantGone(t, "", []string{x, old}, a, b)
	if err := b.v.Unlink(rel.ID); err != nil {
		t.Fatal(err)
	}
	a.merge()
	if rels, _ := a.v.Relations(vault.RelationQuery{}); len(rels.Relations) != 0 {
		t.Fatalf("unlink did not reach a: %v", rels.Relations)
	}
	_ = y
}

// TestSameFactOnTwoDevicesIsOneMemory: a claim stored on both devices
// before either saw the other's ends as one live memory on both, the
// first stored; a claim that differs in a number stays two.
func TestSameFactOnTwoDevicesIsOneMemory(t *testing.T) {
	_, a, b := joined(t)
	first := a.store("The staging database listens on port 5433.")
	// Two devices' stores in one millisecond are concurrent: the fold
	// orders them by device id, not by which ran first. Let the wall
	// clock move on so a's store is the earlier one on every machine.
	time.Sleep(3 * time.Millisecond)
	b.store("the staging database listens on port 5433")
	b.store("the staging database listens on port 5434")
	mergeInTurn(b, a, b)
	for _, d := range []*device{a, b} {
		got := d.liveTexts()
		if len(got) != 2 {
			t.Fatalf("%s: live %q, want the 5433 claim once and the 5434 claim", d.name, got)
		}
		r, err := d.v.Get(first)
		if err != nil || !r.Live() {
			t.Fatalf("%s: the first stored copy is not the one kept: %v %v", d.name, r, err)
		}
	}
	if diff := sameLists(a.memories(), b.memories()); diff != "" {
		t.Fatalf("devices differ:\n%s", diff)
	}
}

// TestReopenMergesWhatArrived: a command that opens the vault merges.
func TestReopenMergesWhatArrived(t *testing.T) {
	_, a, b := joined(t)
	a.store("the printer on floor two jams on a4 paper")
	if _, err := b.reopen(); err != nil {
		t.Fatal(err)
	}
	if got := b.liveTexts(); len(got) != 1 {
		t.Fatalf("b after reopen holds %q", got)
	}
}

// TestJoinWrongPassphrase is refused and changes nothing.
func TestJoinWrongPassphrase(t *testing.T) {
	clearEnv(t)
	folder := filepath.Join(t.TempDir(), "sync")
	newDevice(t, "a", folder, true)
	b := newDevice(t, "b", "", false)
	_, _, err := Join(b.v, folder, SetupOptions{Passphrase: []byte("not the passphrase"), Name: "b"})
	if !errors.Is(err, ErrWrongPassphrase) {
		t.Fatalf("join with a wrong passphrase: %v", err)
	}
	if _, err := os.Stat(SidecarPath(b.path)); !os.IsNotExist(err) {
		t.Fatalf("a failed join left a sidecar: %v", err)
	}
}

// TestShredOfAFoldedCopyTakesTheOneKept: shredding the copy the fold
// superseded (found by id, as `get` shows it) destroys the claim too: the
// copy the fold kept goes with it, on both devices.
func TestShredOfAFoldedCopyTakesTheOneKept(t *testing.T) {
	_, a, b := joined(t)
	one := a.store("the gate code is 9021")
	other := b.store("The gate code is 9021.")
	mergeInTurn(b, a, b)
	folded := ""
	for _, id := range []string{one, other} {
		r, err := a.v.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Live() {
			folded = id
		}
	}
	if folded == "" {
		t.Fatal("the merge folded neither copy of the same claim")
	}
	if _, err := a.v.Forget(folded, true); err != nil {
		t.Fatal(err)
	}
	mergeInTurn(a, b, a)
	wantGone(t, " after the folded copy "+folded+" was shredded", []string{one, other}, a, b)
}

// TestShredTakesFoldedTwins: a claim stored on two devices is one memory;
// shredding it shreds both copies everywhere, not only the one kept.
func TestShredTakesFoldedTwins(t *testing.T) {
	_, a, b := joined(t)
	kept := a.store("the alarm code is 4417")
	twin := b.store("The alarm code is 4417.")
	mergeInTurn(b, a, b)
	if _, err := a.v.Forget(kept, true); err != nil {
		t.Fatal(err)
	}
	mergeInTurn(a, b, a)
	wantGone(t, " after the shred", []string{kept, twin}, a, b)
}
