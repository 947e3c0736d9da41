package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/release"
	"github.com/compartment/compartment/vaultfmt"
)

// UpdateCmd replaces the installed binary with a signed one the user has
// brought to the machine. It never reaches the network.
type UpdateCmd struct {
	From   string `help:"A release archive (compartment_<version>_<os>_<arch>.tar.gz), an airgap bundle, or a binary with its compartment.sig beside it." type:"path" placeholder:"BUNDLE|BINARY"`
	Binary string `help:"The installed binary to replace (default: this program)." type:"path" placeholder:"PATH"`
	Key    string `help:"Also trust the release public key in this file (64 hex digits) for this update, e.g. one you checked out of band." type:"path" placeholder:"FILE"`
	JSON   bool   `help:"Print JSON: updated, from and to versions, vault formats, signer, daemon restarted." name:"json"`
}

// whereToGetRelease is what update says without --from.
const whereToGetRelease = `compartment never downloads anything by itself, updates included.
To update: get a release for %s (compartment_<version>_%s.tar.gz, with SHA256SUMS
and SHA256SUMS.sig) from the project's releases page, or an airgap bundle made
with 'compartment setup airgap-bundle' on a machine that has it, bring it here,
and run:
    compartment update --from FILE
It checks the signature, refuses a binary that could not read your vault, and
replaces %s in place.
`

// updateReport is what an update did.
type updateReport struct {
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

func (c *UpdateCmd) Run(app *App) error {
	target, err := c.target()
	if err != nil {
		return err
	}
	if c.From == "" {
		plat := runtime.GOOS + "_" + runtime.GOARCH
		if c.JSON {
			return printJSON(app.Stdout, updateReport{Binary: target, Target: goosArch(),
				Note: "no --from given: compartment never downloads; bring a release archive or bundle and use --from"})
		}
		fmt.Fprintf(app.Stdout, whereToGetRelease, goosArch(), plat, target)
		return nil
	}
	keys := release.TrustedKeys()
	if c.Key != "" {
		k, err := release.LoadPublicKey(c.Key)
		if err != nil {
			return err
		}
		keys = append(keys, k)
	}
	// The new binary is staged beside the old one, so the final rename
	// stays on one file system and is atomic.
	stage, err := os.MkdirTemp(filepath.Dir(target), ".compartment-update-")
	if err != nil {
		return fmt.Errorf("update: cannot write beside %s (%w); run it as the user who installed it, or give --binary", target, err)
	}
	defer os.RemoveAll(stage)
	cand, sig, err := stageCandidate(c.From, stage)
	if err != nil {
		return err
	}
	s, err := verifyCandidate(cand, sig, keys, c.From)
	if err != nil {
		return err
	}
	rep := updateReport{Binary: target, From: installedVersion(target), To: s.Version, Target: s.Target,
		VaultFormatFrom: vaultfmt.FormatVersion, VaultFormatTo: s.VaultFormat, Signer: release.FormatKey(s.Key)}
	if err := c.checkFormats(app, s); err != nil {
		return err
	}
	if sum, _, err := release.FileSHA256(target); err == nil && sum == s.SHA256 {
		rep.Note = "already installed: " + target + " is exactly this binary"
		return printUpdate(app, c.JSON, rep)
	}
	if err := replaceBinary(cand, target); err != nil {
		return err
	}
	if err := writeSigAtomic(sigPathFor(target), sig); err != nil {
		return fmt.Errorf("update: %s is updated, but its signature could not be saved beside it: %w", target, err)
	}
	rep.Updated = true
	// The daemon runs the old code: stop it, and the next search starts
	// the new binary's.
	rep.DaemonRestarted, err = embed.StopDaemon("")
	if err != nil {
		rep.Note = "the embedding daemon did not stop: " + err.Error() + "; it exits on its own when idle"
	}
	return printUpdate(app, c.JSON, rep)
}

// target is the binary to replace, with symlinks resolved.
func (c *UpdateCmd) target() (string, error) {
	t := c.Binary
	if t == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("update: %w", err)
		}
		t = exe
	}
	t, err := filepath.EvalSymlinks(t)
	if err != nil {
		return "", fmt.Errorf("update: %w", err)
	}
	return t, nil
}

// stageCandidate puts the new binary into stage (what is verified is then
// exactly what is installed) and returns it with its signature.
func stageCandidate(from, stage string) (string, []byte, error) {
	if strings.HasSuffix(from, ".tar.gz") || strings.HasSuffix(from, ".tgz") {
		return release.ExtractBinary(from, stage)
	}
	sig, _ := signatureBeside(from)
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

// verifyCandidate checks the signature and that the binary is for this
// system.
func verifyCandidate(cand string, sig []byte, keys []ed25519.PublicKey, from string) (*release.BinarySig, error) {
	if sig == nil {
		return nil, fmt.Errorf("update: %s has no compartment.sig; refusing an unsigned binary (release archives and airgap bundles carry one)", from)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("update: this build trusts no release key (a development build); give --key FILE with the release's public key")
	}
	s, err := release.VerifyBinary(cand, sig, keys)
	if err != nil {
		return nil, fmt.Errorf("update: %s: %w; nothing was changed", from, err)
	}
	if s.Target != goosArch() {
		return nil, fmt.Errorf("update: %s is for %s, this is %s; nothing was changed", from, s.Target, goosArch())
	}
	return s, nil
}

// checkFormats refuses a binary that writes an older vault format than
// this one, or than the vault already on disk: it could not open them.
func (c *UpdateCmd) checkFormats(app *App, s *release.BinarySig) error {
	if s.VaultFormat < vaultfmt.FormatVersion {
		return fmt.Errorf("update: %s reads vault format %d, this build writes format %d: refusing to downgrade the vault format; nothing was changed",
			s.Version, s.VaultFormat, vaultfmt.FormatVersion)
	}
	have, err := vaultfmt.PeekVersion(app.Vault)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, vaultfmt.ErrNotVault) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update: read the vault's format: %w", err)
	}
	if s.VaultFormat < have {
		return fmt.Errorf("update: the vault %s is format %d and %s reads only up to format %d: refusing to downgrade; nothing was changed",
			app.Vault, have, s.Version, s.VaultFormat)
	}
	return nil
}

// installedVersion is the version of the binary at path: this program's
// own, else what the signature beside it says.
func installedVersion(path string) string {
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil && exe == path {
			return version
		}
	}
	if sig, _ := signatureBeside(path); sig != nil {
		if s, err := release.VerifyBinary(path, sig, release.TrustedKeys()); err == nil {
			return s.Version
		}
	}
	return "unknown"
}

// replaceBinary renames cand over target. A running process keeps the old
// file (its inode) until it exits; anyone starting compartment afterwards
// gets the new one, never half of either. Windows cannot replace a running
// executable's name, but can rename it: the old one is moved aside first.
func replaceBinary(cand, target string) error {
	if err := os.Chmod(cand, 0o755); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	if err := syncStaged(cand); err != nil {
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
	return syncUpdatedDir(filepath.Dir(target))
}

// sigPathFor is where the signature of an installed binary lives: the
// compartment.sig beside it, or <binary>.sig under another name.
func sigPathFor(bin string) string {
	if b := filepath.Base(bin); b == "compartment" || b == "compartment.exe" {
		return filepath.Join(filepath.Dir(bin), "compartment.sig")
	}
	return bin + ".sig"
}

func printUpdate(app *App, asJSON bool, r updateReport) error {
	if asJSON {
		return printJSON(app.Stdout, r)
	}
	if !r.Updated {
		fmt.Fprintln(app.Stdout, r.Note)
		return nil
	}
	fmt.Fprintf(app.Stdout, "updated %s: %s -> %s (%s), signed by %s\n", r.Binary, r.From, r.To, r.Target, r.Signer)
	if r.VaultFormatFrom == r.VaultFormatTo {
		fmt.Fprintf(app.Stdout, "vault format %d, unchanged\n", r.VaultFormatTo)
	} else {
		fmt.Fprintf(app.Stdout, "vault format %d -> %d: vaults are upgraded when the new version next writes them\n", r.VaultFormatFrom, r.VaultFormatTo)
	}
	if r.DaemonRestarted {
		fmt.Fprintln(app.Stdout, "embedding daemon stopped; the next search starts the new one")
	}
	if r.Note != "" {
		fmt.Fprintln(app.Stdout, r.Note)
	}
	fmt.Fprintln(app.Stdout, "processes already running (agents' MCP servers) keep the old version until they restart")
	return nil
}

func syncStaged(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

func syncUpdatedDir(dir string) error {
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

// writeSigAtomic writes data to path by a temporary file renamed over it.
func writeSigAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sig-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
