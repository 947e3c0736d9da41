package session

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// TestReadPassphraseLine: the first line without its ending; an empty
// pipe is refused rather than read as an empty passphrase.
func TestReadPassphraseLine(t *testing.T) {
	for in, want := range map[string]string{"pass word\r\nrest\n": "pass word", "last line": "last line"} {
		got, err := ReadPassphraseLine(strings.NewReader(in))
		if err != nil || string(got) != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	if _, err := ReadPassphraseLine(strings.NewReader("\n")); err == nil {
		t.Error("an empty line was taken as a passphrase")
	}
}

// TestNewPassphrase: stdin first, the environment only where allowed,
// and a short one refused whatever its source.
func TestNewPassphrase(t *testing.T) {
	t.Setenv(EnvPassphrase, "from the environment")
	if p, err := NewPassphrase(strings.NewReader("from stdin here\n"), true); err != nil || string(p) != "from stdin here" {
		t.Errorf("stdin: %q %v", p, err)
	}
	if p, err := NewPassphrase(nil, true); err != nil || string(p) != "from the environment" {
		t.Errorf("environment: %q %v", p, err)
	}
	if _, err := NewPassphrase(strings.NewReader("short\n"), true); err == nil || !strings.Contains(err.Error(), "too short") {
		t.Errorf("a 5-character passphrase: %v", err)
	}
}

// TestPassphraseStdinFirst: a piped passphrase wins over the environment.
func TestPassphraseStdinFirst(t *testing.T) {
	hooks(t)
	t.Setenv(EnvPassphrase, "from the environment")
	path := filepath.Join(t.TempDir(), "memory.vault")
	p, err := Passphrase(path, Request{Stdin: strings.NewReader("piped one\n")}, true)
	if err != nil || string(p) != "piped one" {
		t.Fatalf("%q %v", p, err)
	}
}

// TestWithKeyfile: a passphrase gets the named keyfile; a master key
// (session, keychain) is left alone.
func TestWithKeyfile(t *testing.T) {
	kf := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(kf, bytes.Repeat([]byte{7}, 32), 0o600); err != nil {
		t.Fatal(err)
	}
	vp := filepath.Join(t.TempDir(), "memory.vault")
	u, err := WithKeyfile(vp, kf, vaultfmt.Unlock{Passphrase: []byte("x")})
	if err != nil || len(u.Keyfile) != 32 {
		t.Fatalf("passphrase: %d bytes of keyfile, %v", len(u.Keyfile), err)
	}
	u, err = WithKeyfile(vp, kf, vaultfmt.Unlock{MasterKey: make([]byte, 32)})
	if err != nil || u.Keyfile != nil {
		t.Fatalf("master key: %v %v", u.Keyfile, err)
	}
}

// TestUnlockEveryoneKeepsSession: the second unlock keeps the session (and
// reads no passphrase); a wrong passphrase leaves the vault locked.
func TestUnlockEveryoneKeepsSession(t *testing.T) {
	hooks(t)
	path, open := keeperVault(t)
	if _, err := UnlockEveryone(path, Request{Stdin: strings.NewReader("wrong passphrase\n")}, false); !errors.Is(err, vaultfmt.ErrWrongPassphrase) {
		t.Fatalf("wrong passphrase: %v", err)
	}
	res, err := UnlockEveryone(path, Request{Stdin: strings.NewReader(keeperPass + "\n")}, false)
	if err != nil || res.Already || !res.State.Unlocked || len(res.Unlock.Passphrase) == 0 {
		t.Fatalf("unlock: %+v %v", res, err)
	}
	again, err := UnlockEveryone(path, Request{}, false) // nothing to read: must not need it
	if err != nil || !again.Already || again.Credential != res.Credential {
		t.Fatalf("second unlock: %+v %v", again, err)
	}
	key, err := Obtain(path, Request{})
	if err != nil || key.Source != SourceSession {
		t.Fatalf("obtain after unlock: %v %v", key.Source, err)
	}
	v, err := open(key.Unlock)
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
}

// TestTwoFactorOnAndOff: enable makes a keyfile the vault then needs (the
// passphrase alone is refused), status finds it, disable goes back; a
// second enable is refused and changes nothing.
func TestTwoFactorOnAndOff(t *testing.T) {
	hooks(t)
	path, _ := keeperVault(t)
	open := func(u vaultfmt.Unlock) (*vault.Vault, error) { return vault.Open(path, vault.Options{Unlock: u}) }
	kf := filepath.Join(t.TempDir(), "usb", "key")
	if err := os.MkdirAll(filepath.Dir(kf), 0o700); err != nil {
		t.Fatal(err)
	}
	pipe := func() Request { return Request{Keyfile: kf, Stdin: strings.NewReader(keeperPass + "\n")} }
	on, err := EnableTwoFactor(path, pipe(), open)
	if err != nil || !on.Generated || on.Keyfile != kf || on.Default || on.RememberErr != nil {
		t.Fatalf("enable: %+v %v", on, err)
	}
	if _, err := open(vaultfmt.Unlock{Passphrase: []byte(keeperPass)}); err == nil {
		t.Fatal("the passphrase alone still opens the vault")
	}
	st, err := TwoFactorState(path)
	if err != nil || !st.Enabled || st.Keyfile != kf || !st.Present {
		t.Fatalf("status: %+v %v", st, err)
	}
	if _, err := EnableTwoFactor(path, pipe(), open); err == nil || !strings.Contains(err.Error(), "already on") {
		t.Fatalf("second enable: %v", err)
	}
	if _, err := DisableTwoFactor(path, Request{Stdin: strings.NewReader(keeperPass + "\n")}, open); err != nil {
		t.Fatalf("disable (keyfile remembered): %v", err)
	}
	if st, err := TwoFactorState(path); err != nil || st.Enabled || st.Keyfile != "" {
		t.Fatalf("status after disable: %+v %v", st, err)
	}
	v, err := open(vaultfmt.Unlock{Passphrase: []byte(keeperPass)})
	if err != nil {
		t.Fatalf("the passphrase alone after disable: %v", err)
	}
	v.Close()
}

// TestLockEveryone: with a session, flush runs with its key and the vault
// ends locked even when flush fails (the failure reported after); with no
// key at hand a lock runs no flush and asks nothing, unless a key is needed
// (signing), when the prompt is asked and its failure stops the lock.
func TestLockEveryone(t *testing.T) {
	hooks(t)
	path, open := keeperVault(t)
	if _, err := UnlockEveryone(path, Request{Stdin: strings.NewReader(keeperPass + "\n")}, false); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	var got vaultfmt.Unlock
	flushed, err := LockEveryone(path, Request{}, false, func(u vaultfmt.Unlock) error { got = u; return boom })
	if !flushed || !errors.Is(err, boom) || !strings.Contains(err.Error(), "locked (every key dropped)") {
		t.Fatalf("flush failing: flushed=%v %v", flushed, err)
	}
	if v, err := open(got); err != nil {
		t.Fatalf("flush was not given a key that opens the vault: %v", err)
	} else {
		v.Close()
	}
	if _, err := Obtain(path, Request{}); !errors.Is(err, vault.ErrLocked) {
		t.Fatalf("after the lock: %v", err)
	}
	asked := 0
	prompt := Request{Prompt: func() ([]byte, error) { asked++; return nil, vault.ErrLocked }}
	flushed, err = LockEveryone(path, prompt, false, func(vaultfmt.Unlock) error { t.Error("flush ran with no key"); return nil })
	if flushed || err != nil || asked != 0 {
		t.Fatalf("locked, no key needed: flushed=%v asked=%d %v", flushed, asked, err)
	}
	if _, err = LockEveryone(path, prompt, true, func(vaultfmt.Unlock) error { return nil }); !errors.Is(err, vault.ErrLocked) || asked != 1 {
		t.Fatalf("key needed, none given: asked=%d %v", asked, err)
	}
}

// TestOtherPassphrase: stdin first, then the environment; with neither
// and no terminal, the locked error that says how else to give it.
func TestOtherPassphrase(t *testing.T) {
	t.Setenv(EnvPassphrase, "from the environment")
	if p, err := OtherPassphrase(strings.NewReader("the folder's one\n"), "?"); err != nil || string(p) != "the folder's one" {
		t.Errorf("stdin: %q %v", p, err)
	}
	if p, err := OtherPassphrase(nil, "?"); err != nil || string(p) != "from the environment" {
		t.Errorf("environment: %q %v", p, err)
	}
	if _, err := OtherPassphrase(strings.NewReader(""), "?"); err == nil {
		t.Error("an empty stdin was taken as a passphrase")
	}
	t.Setenv(EnvPassphrase, "")
	if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		tty.Close()
		t.Skip("a terminal is attached: the prompt would wait for it")
	}
	if _, err := OtherPassphrase(nil, "?"); !errors.Is(err, errNothingOffered) {
		t.Errorf("no stdin, no environment, no terminal: %v", err)
	}
}

// TestUnlockCreated: after it, the session holds the new vault's key for
// every process (Obtain finds it without a passphrase and the vault opens
// with it); a wrong credential leaves the vault locked.
func TestUnlockCreated(t *testing.T) {
	hooks(t)
	t.Setenv(EnvPassphrase, "")
	path, open := keeperVault(t)
	if err := UnlockCreated(path, vaultfmt.Unlock{Passphrase: []byte("not the passphrase")}); !errors.Is(err, vaultfmt.ErrWrongPassphrase) {
		t.Fatalf("wrong passphrase: %v", err)
	}
	if s, _ := For(path); s.State().Unlocked {
		t.Fatal("a wrong passphrase unlocked the session")
	}
	if err := UnlockCreated(path, vaultfmt.Unlock{Passphrase: []byte(keeperPass)}); err != nil {
		t.Fatal(err)
	}
	s, _ := For(path)
	if st := s.State(); !st.Unlocked || st.Once {
		t.Fatalf("state after UnlockCreated: %+v", st)
	}
	key, err := Obtain(path, Request{})
	if err != nil {
		t.Fatalf("Obtain after UnlockCreated: %v", err)
	}
	v, err := open(key.Unlock)
	if err != nil {
		t.Fatalf("open with the session's key: %v", err)
	}
	v.Close()
}
