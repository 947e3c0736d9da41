package session_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/vaultfmt"
)

// TestUnlockOnceForEveryProcess: one unlock, then CLI commands and an MCP
// server all open the vault with no passphrase anywhere.
func TestUnlockOnceForEveryProcess(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// init unlocks the vault it creates, so its "Next: compartment store"
	// hint works; lock it to start from the state a reboot leaves.
	e.ok("", withPass, "init", "--no-app")
	e.ok("", nil, "lock")
	mustBeLocked(t, "store before unlock", e.fails("", nil, "store", "x is y", "--source", "t"))
	e.unlock()
	id := e.store("The staging database listens on port 5433")
	if out := e.ok("", nil, "get", id); !strings.Contains(out, "port 5433") {
		t.Fatalf("get from another process: %s", out)
	}
	srv := e.startMCP()
	mcpID, err := srv.store("The build server is called anvil", "test")
	if err != nil {
		t.Fatal(err)
	}
	if out := e.ok("", nil, "get", mcpID); !strings.Contains(out, "anvil") {
		t.Fatalf("the CLI does not see the server's write: %s", out)
	}
	ids, err := srv.search("staging database port", "test")
	if err != nil {
		t.Fatal(err)
	}
	if !contains(ids, id) {
		t.Fatalf("the server does not see the CLI's write: %v", ids)
	}
	if out := e.ok("", nil, "unlock", "--json"); !strings.Contains(out, `"already": true`) {
		t.Fatalf("a second unlock asked again instead of reporting the session: %s", out)
	}
}

// TestLockReachesEveryProcess: `compartment lock` makes a running server's
// next call fail with "locked", memory_lock locks the CLI out, and a new
// unlock serves the same server again.
func TestLockReachesEveryProcess(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initVault()
	e.unlock()
	a, b := e.startMCP(), e.startMCP()
	for _, srv := range []*mcpClient{a, b} {
		if _, err := srv.store("Server warm-up fact number "+randPhrase(5), "test"); err != nil {
			t.Fatal(err)
		}
	}
	out := e.ok("", nil, "lock")
	if !strings.Contains(out, "flushed and compacted") {
		t.Fatalf("lock did not flush: %s", out)
	}
	for name, srv := range map[string]*mcpClient{"a": a, "b": b} {
		_, err := srv.store("This must not be stored "+randPhrase(5), "test")
		if err == nil {
			t.Fatalf("server %s stored after lock", name)
		}
		mustBeLocked(t, "server "+name+" after lock", err.Error())
	}
	if _, err := os.Stat(e.credPath(e.vault)); !os.IsNotExist(err) {
		t.Fatal("the credential survived lock")
	}
	e.unlock()
	if _, err := a.store("Stored again after a new unlock "+randPhrase(5), "test"); err != nil {
		t.Fatalf("server a after a new unlock: %v", err)
	}
	if _, err := b.call("memory_lock", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	mustBeLocked(t, "CLI after memory_lock", e.fails("", nil, "store", "x is y", "--source", "t"))
	_, err := a.store("Also refused after memory_lock "+randPhrase(5), "test")
	if err == nil {
		t.Fatal("server a stored after memory_lock in server b")
	}
	mustBeLocked(t, "server a after memory_lock", err.Error())
}

// TestRebootInvalidatesCredential: after the boot id changes, the
// credential opens nothing and is removed.
func TestRebootInvalidatesCredential(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initVault()
	e.unlock()
	e.store("Written before the reboot " + randPhrase(5))
	cred := e.credPath(e.vault)
	saved, err := os.ReadFile(cred)
	if err != nil {
		t.Fatal(err)
	}
	e.setBootID()
	mustBeLocked(t, "store after reboot", e.fails("", nil, "store", "x is y", "--source", "t"))
	if _, err := os.Stat(cred); !os.IsNotExist(err) {
		t.Fatal("the dead credential was left behind")
	}
	// Putting the old file back does not help either.
	os.WriteFile(cred, saved, 0o600)
	mustBeLocked(t, "store with the restored credential", e.fails("", nil, "store", "x is y", "--source", "t"))
}

// TestCopiedCredentialOpensNothing: a credential copied to another vault's
// name (same passphrase even) does not open it.
func TestCopiedCredentialOpensNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initVault()
	other := filepath.Join(e.dir, "other.vault")
	e.initVaultAt(other)
	e.unlock()
	data, err := os.ReadFile(e.credPath(e.vault))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.credPath(other), data, 0o600); err != nil {
		t.Fatal(err)
	}
	mustBeLocked(t, "store into the other vault", e.fails("", nil, "--vault", other, "store", "x is y", "--source", "t"))
	e.store("The first vault still works " + randPhrase(5))
}

// TestAutoLock: idle past the timeout, the next use finds the vault locked,
// in the CLI and in a running server; regular use keeps it open. It and
// TestAutoLockCLI run alone (not in parallel): keeping the vault open by
// use needs the machine not to stall for seconds between two uses.
func TestAutoLock(t *testing.T) {
	t.Parallel()
	e := newEnv(t, session.EnvAutoLockSeconds+"=4")
	e.initVault()
	e.unlock()
	srv := e.startMCP()
	// Use every half second for longer than the timeout: no lock.
	for deadline := time.Now().Add(6 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if _, err := srv.store("Kept alive by use "+randPhrase(5), "test"); err != nil {
			t.Fatalf("locked while in use: %v", err)
		}
	}
	time.Sleep(5 * time.Second)
	_, err := srv.store("After the idle timeout "+randPhrase(5), "test")
	if err == nil {
		t.Fatal("the server stored after the idle timeout")
	}
	mustBeLocked(t, "server after idle", err.Error())
	mustBeLocked(t, "CLI after idle", e.fails("", nil, "store", "x is y", "--source", "t"))
	if _, err := os.Stat(e.credPath(e.vault)); !os.IsNotExist(err) {
		t.Fatal("the credential survived auto-lock")
	}
}

// TestAutoLockCLI: with no server running, the CLI itself notices the idle
// timeout when it picks the credential up.
func TestAutoLockCLI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, session.EnvAutoLockSeconds+"=2")
	e.initVault()
	e.unlock()
	e.store("Stored at once " + randPhrase(5))
	time.Sleep(3 * time.Second)
	mustBeLocked(t, "CLI after idle", e.fails("", nil, "store", "x is y", "--source", "t"))
}

// TestUnlockOnce: --once lets exactly one process in.
func TestUnlockOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initVault()
	e.unlock("--once")
	e.store("Stored by the one process let in " + randPhrase(5))
	mustBeLocked(t, "second process after --once", e.fails("", nil, "store", "x is y", "--source", "t"))
}

// TestWrongPassphrase: a wrong passphrase pauses, then fails; no lockout
// follows, the right one works at once.
func TestWrongPassphrase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initVault()
	for range 2 {
		r := e.run("not the passphrase\n", nil, "unlock", "--passphrase-stdin")
		if r.code == 0 || !strings.Contains(r.stderr, "wrong passphrase") {
			t.Fatalf("wrong passphrase: exit %d, %s", r.code, r.stderr)
		}
		if r.took < 100*time.Millisecond {
			t.Fatalf("a wrong passphrase answered in %v, before the fixed delay", r.took)
		}
	}
	e.unlock()
	e.store("Stored after two wrong tries " + randPhrase(5))
}

// TestEnvPassphraseStillWorks: scripts keep using COMPARTMENT_PASSPHRASE,
// with no session at all.
func TestEnvPassphraseStillWorks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initVault()
	e.store("Stored by a script "+randPhrase(5), withPass...)
	if _, err := os.Stat(e.credPath(e.vault)); !os.IsNotExist(err) {
		t.Fatal("a command with the passphrase in the environment left a credential")
	}
}

// TestTwoFactor: the keyfile is required by the cryptography, remembered
// for unlock, and reported clearly when missing.
func TestTwoFactor(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initVault()
	small := filepath.Join(e.dir, "small.key")
	os.WriteFile(small, []byte("too short"), 0o600)
	if msg := e.fails(testPass+"\n", nil, "--keyfile", small, "2fa", "enable", "--passphrase-stdin"); !strings.Contains(msg, "at least 16") {
		t.Fatalf("a 9-byte keyfile: %s", msg)
	}
	kf := filepath.Join(e.dir, "usb", "vault.key")
	os.MkdirAll(filepath.Dir(kf), 0o700)
	e.ok(testPass+"\n", nil, "--keyfile", kf, "2fa", "enable", "--passphrase-stdin")
	fi, err := os.Stat(kf)
	if err != nil || fi.Size() != 32 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("generated keyfile: %v %v", fi, err)
	}
	var st struct {
		Enabled        bool   `json:"enabled"`
		Keyfile        string `json:"keyfile"`
		KeyfilePresent bool   `json:"keyfile_present"`
	}
	json.Unmarshal([]byte(e.ok("", nil, "2fa", "status", "--json")), &st)
	if !st.Enabled || st.Keyfile != kf || !st.KeyfilePresent {
		t.Fatalf("2fa status: %+v", st)
	}
	// The cryptography, not the config, demands the keyfile: the
	// passphrase alone does not open the file even with the config gone.
	if _, err := vaultfmt.Open(e.vault, vaultfmt.Unlock{Passphrase: []byte(testPass)}, nil); err == nil {
		t.Fatal("the passphrase alone opened a two-factor vault")
	}
	wrong := filepath.Join(e.dir, "wrong.key")
	os.WriteFile(wrong, []byte("0123456789abcdef0123456789abcdef"), 0o600)
	if _, err := vaultfmt.Open(e.vault, vaultfmt.Unlock{Passphrase: []byte(testPass), Keyfile: []byte("0123456789abcdef0123456789abcdef")}, nil); err == nil {
		t.Fatal("a wrong keyfile opened the vault")
	}
	// Unlock feels the same while the keyfile is where it was.
	e.unlock()
	e.store("Stored with two factors " + randPhrase(5))
	e.ok("", nil, "lock")
	// Gone: a clear message naming the remembered place, no prompt.
	moved := filepath.Join(e.dir, "elsewhere.key")
	os.Rename(kf, moved)
	msg := e.fails(testPass+"\n", nil, "unlock", "--passphrase-stdin")
	if !strings.Contains(msg, kf) || !strings.Contains(msg, "keyfile") {
		t.Fatalf("unlock without the keyfile: %s", msg)
	}
	msg = e.fails("", withPass, "store", "x is y", "--source", "t")
	if !strings.Contains(msg, kf) {
		t.Fatalf("store without the keyfile: %s", msg)
	}
	if msg := e.fails(testPass+"\n", nil, "--keyfile", wrong, "unlock", "--passphrase-stdin"); !strings.Contains(msg, "wrong passphrase or keyfile") {
		t.Fatalf("unlock with a wrong keyfile: %s", msg)
	}
	// Named once with --keyfile, the new place is remembered.
	e.ok(testPass+"\n", nil, "--keyfile", moved, "unlock", "--passphrase-stdin")
	e.ok("", nil, "lock")
	e.unlock()
	e.ok("", nil, "lock")
	// Rekey keeps the factor.
	e.ok("new passphrase for two factors\n", withPass, "rekey", "--new-passphrase-stdin")
	if need, err := session.NeedsKeyfile(e.vault); err != nil || !need {
		t.Fatalf("rekey dropped the keyfile factor (%v)", err)
	}
	if _, err := vaultfmt.Open(e.vault, vaultfmt.Unlock{Passphrase: []byte("new passphrase for two factors")}, nil); err == nil {
		t.Fatal("after rekey the new passphrase alone opened a two-factor vault")
	}
	// Disable: the passphrase alone works again.
	e.ok("new passphrase for two factors\n", nil, "2fa", "disable", "--passphrase-stdin")
	if need, _ := session.NeedsKeyfile(e.vault); need {
		t.Fatal("2fa disable left the keyfile factor")
	}
	os.Remove(moved)
	// The vault was locked above, so COMPARTMENT_PASSPHRASE stays shut
	// out; an unlock with the passphrase alone shows it suffices again.
	e.ok("new passphrase for two factors\n", nil, "unlock", "--passphrase-stdin")
	e.store("Stored after 2fa disable " + randPhrase(5))
}

// TestRekey: after a rekey the old passphrase opens nothing, the new one
// does, and a running session is unaffected (the master key stays).
func TestRekey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initVault()
	e.unlock()
	e.ok("an entirely new passphrase\n", withPass, "rekey", "--new-passphrase-stdin")
	e.store("The session outlives a rekey " + randPhrase(5))
	e.ok("", nil, "lock")
	if msg := e.fails(testPass+"\n", nil, "unlock", "--passphrase-stdin"); !strings.Contains(msg, "wrong passphrase") {
		t.Fatalf("old passphrase after rekey: %s", msg)
	}
	e.ok("an entirely new passphrase\n", nil, "unlock", "--passphrase-stdin")
	e.store("Stored with the new passphrase " + randPhrase(5))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestPanicLockWithEnvironment is the audit's reproduction: a server
// started with COMPARTMENT_PASSPHRASE answers memory_lock, and its next
// memory_search must answer locked instead of re-unlocking from its
// environment. The CLI with the same environment is locked out too, and
// `unlock` does not take the passphrase from it; a typed (piped) unlock
// serves the same server again.
func TestPanicLockWithEnvironment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.initVault()
	srv := e.startMCP(withPass...)
	if _, err := srv.store("The panic lock drill happens on Thursdays", "test"); err != nil {
		t.Fatal(err)
	}
	r, err := srv.call("memory_lock", map[string]any{})
	if err != nil || !strings.Contains(string(r.Structured), `"locked":true`) {
		t.Fatalf("memory_lock: %s %v", r.Structured, err)
	}
	ids, err := srv.search("panic lock drill", "test")
	if err == nil {
		t.Fatalf("memory_search after memory_lock returned %d memories", len(ids))
	}
	mustBeLocked(t, "memory_search after memory_lock", err.Error())
	mustBeLocked(t, "CLI with the environment after memory_lock", e.fails("", withPass, "search", "panic lock drill"))
	if msg := e.fails("", withPass, "unlock"); !strings.Contains(msg, "explicit unlock") {
		t.Fatalf("unlock from the environment after a lock: %s", msg)
	}
	e.unlock()
	if ids, err := srv.search("panic lock drill", "test"); err != nil || len(ids) == 0 {
		t.Fatalf("the server after an explicit unlock: %v %v", ids, err)
	}
	e.ok("", nil, "lock")
	mustBeLocked(t, "CLI with the environment after compartment lock", e.fails("", withPass, "store", "x is y", "--source", "t"))
	if _, err := srv.search("panic lock drill", "test"); err == nil {
		t.Fatal("the server re-unlocked from its environment after compartment lock")
	}
}

// TestServeSeesKeychainUnlock: `unlock --keychain` reaches a running
// server, and memory_lock deletes the keychain item (as its description
// says), after which the CLI finds the vault locked.
func TestServeSeesKeychainUnlock(t *testing.T) {
	t.Parallel()
	tool, err := filepath.Abs(filepath.Join("testdata", "fake-security"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	e := newEnv(t, session.EnvKeychainTool+"="+tool, "FAKE_KEYCHAIN="+dir)
	e.initVault()
	srv := e.startMCP()
	e.ok(testPass+"\n", nil, "unlock", "--keychain", "--passphrase-stdin")
	if _, err := srv.store("The keychain drill happens on Fridays", "test"); err != nil {
		t.Fatalf("the server after unlock --keychain: %v", err)
	}
	if _, err := srv.call("memory_lock", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if items, _ := os.ReadDir(filepath.Join(dir, "items")); len(items) != 0 {
		t.Fatalf("memory_lock left %d keychain items", len(items))
	}
	mustBeLocked(t, "CLI after memory_lock", e.fails("", nil, "store", "x is y", "--source", "t"))
}
