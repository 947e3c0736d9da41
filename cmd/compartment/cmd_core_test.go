package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// The core CLI of issue 2, run as a user would: init, store, get, forget,
// status, export, import, verify, lock --sign, rekey, and what happens on a
// wrong passphrase, a damaged file and a kill -9.

func TestInitRefusesShortPassphraseAndOverwrite(t *testing.T) {
	t.Parallel()
	c := newMemCLI(t)
	fresh := filepath.Join(c.dir, "fresh.vault")
	cmd := exec.Command(c.bin, "--vault", fresh, "init", "--no-app", "--passphrase-stdin", "--json")
	cmd.Env = []string{"HOME=" + c.dir, "PATH=" + os.Getenv("PATH")}
	cmd.Stdin = strings.NewReader("short\n")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "too short") {
		t.Fatalf("short passphrase: %v %s", err, out)
	}
	cmd = exec.Command(c.bin, "--vault", fresh, "init", "--no-app", "--passphrase-stdin", "--json")
	cmd.Env = []string{"HOME=" + c.dir, "PATH=" + os.Getenv("PATH")}
	cmd.Stdin = strings.NewReader("a long enough passphrase\n")
	out, err := cmd.Output()
	var res struct{ Path, VaultID string }
	if err != nil || json.Unmarshal(out, &res) != nil || res.Path != fresh {
		t.Fatalf("init: %v %s", err, out)
	}
	before, _ := os.ReadFile(fresh)
	if msg := c.fails("--vault", fresh, "init", "--no-app"); !strings.Contains(msg, "already exists") {
		t.Errorf("second init: %q", msg)
	}
	after, _ := os.ReadFile(fresh)
	if !bytes.Equal(before, after) {
		t.Error("a refused init changed the vault")
	}
}

func TestStoreGetForgetStatus(t *testing.T) {
	c := newMemCLI(t)
	id := c.store("The staging database runs on port 5433", "--tag", "infra", "--importance", "0.75", "--namespace", "work")
	var r vault.Record
	c.json(&r, "get", id[:8])
	if r.ID != id || r.Namespace != "work" || r.Importance != 0.75 || len(r.Tags) != 1 || r.Source != "from chat" {
		t.Fatalf("get: %+v", r)
	}
	if out := c.ok("get", id); !strings.Contains(out, "[from chat, ") {
		t.Errorf("text get does not show the provenance clause: %s", out)
	}
	var st vault.Status
	c.json(&st, "status")
	if st.Live != 1 || st.FormatVersion != 1 || len(st.Slots) != 1 || st.JournalFrames == 0 {
		t.Fatalf("status: %+v", st)
	}
	c.ok("forget", id)
	if msg := c.fails("get", id); !strings.Contains(msg, "not found") {
		t.Errorf("get after forget: %q", msg)
	}
	if msg := c.fails("store", "no source given"); !strings.Contains(msg, "source") {
		t.Errorf("store without --source: %q", msg)
	}
	if msg := c.fails("store", strings.Repeat("too long ", 30), "--source", "x"); !strings.Contains(msg, "split") {
		t.Errorf("over-long store: %q", msg)
	}
}

func TestVaultFileHoldsNoPlaintextAndShredDestroys(t *testing.T) {
	c := newMemCLI(t)
	kept := c.store("kept secret marker alpha-kestrel-31", "--tag", "tag-marker-zulu")
	shredded := c.store("shredded secret marker omega-falcon-77")
	c.ok("link", "Max", "works_at", "Northwind-marker-x9")
	c.ok("forget", shredded, "--shred")
	data, err := os.ReadFile(c.vault)
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range []string{"alpha-kestrel", "omega-falcon", "tag-marker-zulu", "Northwind-marker", "from chat", "works_at"} {
		if bytes.Contains(data, []byte(plain)) {
			t.Errorf("the vault file contains %q in plaintext", plain)
		}
	}
	c.ok("get", kept)
}

func TestExportImportVerifySignRekey(t *testing.T) {
	t.Parallel()
	c := newMemCLI(t)
	c.store("first memory for export")
	c.store("second memory for export", "--kind", "opinion")
	out := filepath.Join(c.dir, "export.jsonl")
	c.ok("export", "--plaintext", out)
	if msg := c.fails("export", "--plaintext", out); !strings.Contains(msg, "exists") {
		t.Errorf("export over an existing file: %q", msg)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("export file mode: %v %v", fi.Mode(), err)
	}

	other := newMemCLI(t)
	var res vault.ImportResult
	other.json(&res, "import", out)
	if res.Stored != 2 {
		t.Fatalf("import: %+v", res)
	}

	var rep vault.FileCheck
	c.json(&rep, "verify")
	if !rep.OK || !rep.File.TagsChecked || rep.File.Signed {
		t.Fatalf("verify: %+v", rep)
	}
	c.ok("lock", "--sign")
	// A lock shuts COMPARTMENT_PASSPHRASE out until an explicit unlock.
	unlock := exec.Command(c.bin, "unlock", "--passphrase-stdin")
	unlock.Env, unlock.Stdin = c.env(memCLIPass), strings.NewReader(memCLIPass+"\n")
	if b, err := unlock.CombinedOutput(); err != nil {
		t.Fatalf("unlock after lock --sign: %v %s", err, b)
	}
	c.json(&rep, "verify")
	if !rep.OK || !rep.File.Signed || !rep.File.SignatureOK || !rep.File.SignedCurrent || !rep.SignerIsYou {
		t.Fatalf("verify after lock --sign: %+v", rep)
	}
	c.store("written after signing")
	c.json(&rep, "verify")
	if !rep.File.SignatureOK || rep.File.SignedCurrent {
		t.Fatalf("verify after a later write: %+v", rep)
	}

	// As after a reboot: no session, no lock marker; only the
	// environment's passphrase from here on.
	os.RemoveAll(filepath.Join(c.dir, "session"))
	cmd := exec.Command(c.bin, "rekey", "--new-passphrase-stdin")
	cmd.Env = c.env(memCLIPass)
	cmd.Stdin = strings.NewReader("the new passphrase\n")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rekey: %v %s", err, b)
	}
	if msg := c.fails("status"); !strings.Contains(msg, "wrong passphrase") {
		t.Errorf("old passphrase after rekey: %q", msg)
	}
	if _, errOut, code := c.runWith("the new passphrase", "status"); code != 0 {
		t.Errorf("new passphrase: %s", errOut)
	}
}

func TestDamagedFileIsRefusedAndLeftAlone(t *testing.T) {
	c := newMemCLI(t)
	c.store("The staging database runs on port 5433")
	c.store("Priya prefers code reviews before noon")
	data, _ := os.ReadFile(c.vault)
	data[len(data)-30] ^= 0x40 // inside the last journal frame's sealed body
	if err := os.WriteFile(c.vault, data, 0o600); err != nil {
		t.Fatal(err)
	}
	msg := c.fails("store", "one more", "--source", "x")
	if !strings.Contains(msg, "damaged") || strings.Count(msg, "\n") != 1 {
		t.Errorf("damaged file: want one line naming the damage, got %q", msg)
	}
	after, _ := os.ReadFile(c.vault)
	if !bytes.Equal(data, after) {
		t.Error("a refused open changed the damaged file")
	}
}

func TestAssertOfflineLeavesNormalUseWorking(t *testing.T) {
	c := newMemCLI(t)
	id := c.store("stored under the guard", "--quarantined")
	c.ok("--assert-offline", "get", id)
	c.ok("--assert-offline", "search", "guard")
}

// A writer storing in a loop is killed with SIGKILL at random moments;
// every id it acknowledged (printed after the fsync) must be in the vault.
func TestKillNineLosesNoAcknowledgedStore(t *testing.T) {
	c := newMemCLI(t)
	rounds := 12
	if os.Getenv("COMPARTMENT_LONG") != "" {
		rounds = 100
	}
	rng := rand.New(rand.NewPCG(7, 11))
	var acked []string
	script := `i=0; while true; do i=$((i+1)); "$BIN" store "memory number $i of round $ROUND" --source test || exit 1; done`
	for round := range rounds {
		cmd := exec.Command("sh", "-c", script)
		cmd.Env = append(c.env(memCLIPass), "BIN="+c.bin, "ROUND="+string(rune('a'+round%26)))
		inOwnGroup(cmd)
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		deadline := time.After(time.Duration(200+rng.IntN(600)) * time.Millisecond)
	collect:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break collect
				}
				acked = append(acked, strings.TrimSpace(l))
			case <-deadline:
				killGroup(cmd)
				for l := range lines {
					acked = append(acked, strings.TrimSpace(l))
				}
				break collect
			}
		}
		cmd.Wait()
	}
	var recent []vault.Record
	c.json(&recent, "recent", "--limit", "100000")
	have := map[string]bool{}
	for _, r := range recent {
		have[r.ID] = true
	}
	for _, id := range acked {
		if !have[id] {
			t.Errorf("acknowledged id %s is missing after kill -9", id)
		}
	}
	if len(acked) == 0 {
		t.Fatal("no store was acknowledged: the test proved nothing")
	}
	var rep vault.FileCheck
	c.json(&rep, "verify")
	if !rep.OK {
		t.Fatalf("verify after the kills: %+v", rep)
	}
	t.Logf("%d rounds, %d acknowledged stores, all present", rounds, len(acked))
}
