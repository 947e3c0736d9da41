package release

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Update is one self-update: a signed binary the user brought (From: a
// release archive, an airgap bundle, or a binary with compartment.sig
// beside it) checked and moved over Target.
type Update struct {
	From   string
	Target string // the installed binary, symlinks resolved
	// Installed is the version of Target ("" when it cannot be told).
	Installed string
	Keys      []ed25519.PublicKey // the trusted release keys
	Platform  string              // GOOS/GOARCH of this system
	// BuildFormat is the vault format this build writes; VaultFormat the
	// format of the user's vault on disk (0: none).
	BuildFormat, VaultFormat int
	VaultPath                string
	AllowDowngrade           bool // install a lower version too
}

// UpdateReport is what an update did (the JSON of `update --json`).
type UpdateReport struct {
	Updated         bool   `json:"updated"`
	Binary          string `json:"binary"`
	From            string `json:"from_version"`
	To              string `json:"to_version"`
	Target          string `json:"target"`
	VaultFormatFrom int    `json:"vault_format_from"`
	VaultFormatTo   int    `json:"vault_format_to"`
	Signer          string `json:"signer"`
	DaemonRestarted bool   `json:"daemon_restarted"`
	Note            string `json:"note,omitempty"`
}

// ErrDowngrade means the candidate is an older version than the installed
// one (or the two cannot be ordered) and no downgrade was allowed.
var ErrDowngrade = errors.New("release: refusing to install an older version")

// Run checks the candidate and, when it passes, replaces the target. It
// changes nothing on any refusal. The new binary is staged beside the old
// one, so the final rename stays on one file system and is atomic.
func (u Update) Run() (UpdateReport, error) {
	stage, err := os.MkdirTemp(filepath.Dir(u.Target), ".compartment-update-")
	if err != nil {
		return UpdateReport{}, fmt.Errorf("update: cannot write beside %s (%w); run it as the user who installed it, or give --binary with a binary you may replace", u.Target, err)
	}
	defer os.RemoveAll(stage)
	cand, sig, err := stageCandidate(u.From, stage)
	if err != nil {
		return UpdateReport{}, err
	}
	s, err := u.verify(cand, sig)
	if err != nil {
		return UpdateReport{}, err
	}
	rep := UpdateReport{Binary: u.Target, From: orUnknown(u.Installed), To: s.Version, Target: s.Target,
		VaultFormatFrom: u.BuildFormat, VaultFormatTo: s.VaultFormat, Signer: FormatKey(s.Key)}
	if err := u.checkFormats(s); err != nil {
		return UpdateReport{}, err
	}
	if sum, _, err := FileSHA256(u.Target); err == nil && sum == s.SHA256 {
		rep.Note = "already installed: " + u.Target + " is exactly this binary"
		return rep, nil
	}
	if err := CheckVersion(u.Installed, s.Version, u.AllowDowngrade); err != nil {
		return UpdateReport{}, err
	}
	if err := replaceBinary(cand, u.Target); err != nil {
		return UpdateReport{}, err
	}
	if err := writeAtomic(SigPathFor(u.Target), sig, 0o644); err != nil {
		return UpdateReport{}, fmt.Errorf("update: %s is updated, but its signature could not be saved beside it: %w", u.Target, err)
	}
	rep.Updated = true
	return rep, nil
}

func orUnknown(v string) string {
	if v == "" {
		return "unknown"
	}
	return v
}

// stageCandidate puts the new binary into stage (what is verified is then
// exactly what is installed) and returns it with its signature.
func stageCandidate(from, stage string) (string, []byte, error) {
	if strings.HasSuffix(from, ".tar.gz") || strings.HasSuffix(from, ".tgz") {
		cand, sig, err := ExtractBinary(from, stage)
		if errors.Is(err, ErrNoBinary) {
			return "", nil, fmt.Errorf("update: %s holds no compartment program; give a release archive (compartment_VERSION_OS_ARCH.tar.gz) or an airgap bundle (setup airgap-bundle)", from)
		}
		return cand, sig, err
	}
	sig, _ := SignatureBeside(from)
	data, err := os.ReadFile(from)
	if err != nil {
		return "", nil, fmt.Errorf("update: %w", err)
	}
	cand := filepath.Join(stage, "compartment")
	if err := os.WriteFile(cand, data, 0o700); err != nil {
		return "", nil, fmt.Errorf("update: %w", err)
	}
	return cand, sig, nil
}

// verify checks the signature and that the binary is for this system.
func (u Update) verify(cand string, sig []byte) (*BinarySig, error) {
	if sig == nil {
		return nil, fmt.Errorf("update: %s has no compartment.sig, so it cannot be checked; refusing an unsigned binary. Use a release archive or airgap bundle (they carry one), or sign your own build with `make release` and pass the key it prints: compartment update --from dist/VERSION/ARCHIVE --key dist/VERSION/release.pub", u.From)
	}
	if len(u.Keys) == 0 {
		return nil, fmt.Errorf("update: this build trusts no release key (a development build); give --key FILE with the release's public key (`make release` prints the command and writes dist/VERSION/release.pub)")
	}
	s, err := VerifyBinary(cand, sig, u.Keys)
	switch {
	case errors.Is(err, ErrUntrusted):
		return nil, fmt.Errorf("update: %s: %w, which this build does not trust; if you checked that key out of band, save it (64 hex digits) to a file and pass --key FILE; nothing was changed", u.From, err)
	case err != nil:
		return nil, fmt.Errorf("update: %s: %w; the file is damaged or was changed after signing: get it again from the release; nothing was changed", u.From, err)
	}
	if s.Target != u.Platform {
		return nil, fmt.Errorf("update: %s is for %s, this is %s; bring the %s archive instead; nothing was changed", u.From, s.Target, u.Platform, strings.ReplaceAll(u.Platform, "/", "_"))
	}
	return s, nil
}

// checkFormats refuses a binary that writes an older vault format than
// this one, or than the vault already on disk: it could not open them.
func (u Update) checkFormats(s *BinarySig) error {
	if s.VaultFormat < u.BuildFormat {
		return fmt.Errorf("update: %s reads vault format %d, this build writes format %d: refusing to downgrade the vault format (it could not open your vault); use a release at least as new as this one; nothing was changed",
			s.Version, s.VaultFormat, u.BuildFormat)
	}
	if s.VaultFormat < u.VaultFormat {
		return fmt.Errorf("update: the vault %s is format %d and %s reads only up to format %d: refusing to downgrade (it could not open the vault); use a newer release; nothing was changed",
			u.VaultPath, u.VaultFormat, s.Version, s.VaultFormat)
	}
	return nil
}

// InstalledVersion is the version of the binary at path: self's own when
// path is the running program (selfPath), else what the trusted
// signature beside it says, else "".
func InstalledVersion(path, selfPath, self string, keys []ed25519.PublicKey) string {
	if path == selfPath {
		return self
	}
	if sig, _ := SignatureBeside(path); sig != nil {
		if s, err := VerifyBinary(path, sig, keys); err == nil {
			return s.Version
		}
	}
	return ""
}

// replaceBinary renames cand over target. A running process keeps the old
// file (its inode) until it exits; anyone starting compartment afterwards
// gets the new one, never half of either. Windows cannot replace a running
// executable's name, but can rename it: the old one is moved aside first.
func replaceBinary(cand, target string) error {
	if err := os.Chmod(cand, 0o755); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	if err := syncFile(cand); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	if runtime.GOOS == "windows" {
		old := target + ".old"
		os.Remove(old)
		if err := os.Rename(target, old); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("update: move %s aside: %w", target, err)
		}
	}
	if err := os.Rename(cand, target); err != nil {
		return fmt.Errorf("update: replace %s: %w; nothing was changed", target, err)
	}
	return syncDir(filepath.Dir(target))
}

// SigPathFor is where the signature of an installed binary lives: the
// compartment.sig beside it, or <binary>.sig under another name.
func SigPathFor(bin string) string {
	if b := filepath.Base(bin); b == "compartment" || b == "compartment.exe" {
		return filepath.Join(filepath.Dir(bin), "compartment.sig")
	}
	return bin + ".sig"
}

// SignatureBeside reads the compartment.sig that sits beside a binary
// (<binary>.sig, else compartment.sig in its directory) and says where.
func SignatureBeside(bin string) ([]byte, string) {
	for _, p := range []string{bin + ".sig", filepath.Join(filepath.Dir(bin), "compartment.sig")} {
		if data, err := os.ReadFile(p); err == nil {
			return data, p
		}
	}
	return nil, ""
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && runtime.GOOS != "windows" {
		return err
	}
	return nil
}

// writeAtomic writes data to path by a temporary file renamed over it.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sig-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
