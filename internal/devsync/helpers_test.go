package devsync

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

var (
	testKDF  = vaultfmt.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}
	testPass = []byte("correct horse battery staple")
)

// device is one test device: its own vault, synced with a folder.
type device struct {
	t    testing.TB
	name string
	path string
	v    *vault.Vault
	s    *Syncer
}

func clearEnv(t testing.TB) {
	if tt, ok := t.(*testing.T); ok {
		for _, k := range []string{"COMPARTMENT_PASSPHRASE", "COMPARTMENT_VAULT", "COMPARTMENT_HOME", "COMPARTMENT_NOW"} {
			tt.Setenv(k, "")
		}
		tt.Setenv("COMPARTMENT_UNLOCK_DELAY_MS", "100")
	}
}

func newVault(t testing.TB, dir string) *vault.Vault {
	t.Helper()
	v, err := vault.Create(filepath.Join(dir, "memory.vault"), vault.Options{
		Unlock: vaultfmt.Unlock{Passphrase: testPass}, KDF: testKDF})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func openVault(t testing.TB, path string) *vault.Vault {
	t.Helper()
	v, err := vault.Open(path, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: testPass}})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// newDevice makes a vault in its own temporary directory and, when folder
// is not "", joins it to folder (initialising it when first is true).
func newDevice(t testing.TB, name, folder string, first bool) *device {
	t.Helper()
	d := &device{t: t, name: name}
	d.v = newVault(t, t.TempDir())
	d.path = d.v.Path()
	if folder != "" {
		d.setUp(folder, first)
	}
	t.Cleanup(func() { d.close() })
	return d
}

// joined is two fresh devices on one new folder: a initialised it, b
// joined it. Neither has stored or merged anything yet.
func joined(t *testing.T) (folder string, a, b *device) {
	t.Helper()
	clearEnv(t)
	folder = filepath.Join(t.TempDir(), "sync")
	a = newDevice(t, "a", folder, true)
	b = newDevice(t, "b", folder, false)
	return folder, a, b
}

// mergeInTurn merges on each device in the order given, as a user moving
// from one machine to the next would.
func mergeInTurn(ds ...*device) {
	for _, d := range ds {
		d.merge()
	}
}

// wantGone fails unless every id is unknown to every device; when says at
// which point of the test it should have gone.
func wantGone(t *testing.T, when string, ids []string, ds ...*device) {
	t.Helper()
	for _, d := range ds {
		for _, id := range ids {
			if _, err := d.v.Get(id); err == nil {
				t.Fatalf("%s still holds %s%s", d.name, id, when)
			}
		}
	}
}

func (d *device) setUp(folder string, first bool) {
	d.t.Helper()
	o := SetupOptions{Passphrase: testPass, KDF: testKDF, Name: d.name}
	var err error
	if first {
		d.s, _, err = Init(d.v, folder, o)
	} else {
		d.s, _, err = Join(d.v, folder, o)
	}
	if err != nil {
		d.t.Fatal(err)
	}
}

func (d *device) close() {
	if d.s != nil {
		d.s.Detach()
		d.s = nil
	}
	if d.v != nil {
		d.v.Close()
		d.v = nil
	}
}

// reopen closes and opens the vault again, attaching it as a command does.
func (d *device) reopen() (Report, error) {
	d.t.Helper()
	d.close()
	d.v = openVault(d.t, d.path)
	s, rep, err := Attach(d.v, Options{})
	d.s = s
	return rep, err
}

func (d *device) merge() Report {
	d.t.Helper()
	rep, err := d.s.Merge()
	if err != nil {
		d.t.Fatalf("%s: merge: %v", d.name, err)
	}
	return rep
}

func (d *device) store(text string) string {
	d.t.Helper()
	res, err := d.v.Store(vault.StoreRequest{Text: text, Source: "test"})
	if err != nil {
		d.t.Fatalf("%s: store %q: %v", d.name, text, err)
	}
	return res.ID
}

// memories is the device's memories as a comparable list: every record's
// id, text, namespace, tags, importance, kind, superseded_by and affirmed
// day, and every relation.
func (d *device) memories() []string {
	d.t.Helper()
	recs, err := d.v.Records()
	if err != nil {
		d.t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		out = append(out, fmt.Sprintf("%s %q ns=%s tags=%v imp=%.2f kind=%s sup=%s aff=%d",
			r.ID, r.Text, r.Namespace, r.Tags, r.Importance, r.Kind, r.SupersededBy, r.Affirmed.UnixMilli()))
	}
	rels, err := d.v.Relations(vault.RelationQuery{Limit: 100000})
	if err != nil {
		d.t.Fatal(err)
	}
	for _, rel := range rels.Relations {
		out = append(out, fmt.Sprintf("rel %s %s %s %s", rel.ID, rel.Subject, rel.Predicate, rel.Object))
	}
	slices.Sort(out)
	return out
}

func (d *device) liveTexts() []string {
	d.t.Helper()
	recs, err := d.v.Records()
	if err != nil {
		d.t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		if r.Live() {
			out = append(out, r.Text)
		}
	}
	slices.Sort(out)
	return out
}

func sameLists(a, b []string) string {
	if slices.Equal(a, b) {
		return ""
	}
	var sb strings.Builder
	for _, x := range a {
		if !slices.Contains(b, x) {
			fmt.Fprintf(&sb, "  only first:  %s\n", x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			fmt.Fprintf(&sb, "  only second: %s\n", x)
		}
	}
	return sb.String()
}

var _ = time.Second

func readAllFile(p string) ([]byte, error) { return os.ReadFile(p) }

func unlockTest() vaultfmt.Unlock { return vaultfmt.Unlock{Passphrase: testPass} }
