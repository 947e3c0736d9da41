package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/vault"
)

// Status is an unlocked vault's status block.
func Status(w io.Writer, st vault.Status) {
	fmt.Fprintf(w, "vault          %s (unlocked)\n", st.Path)
	fmt.Fprintf(w, "format         version %d, id %s, created %s\n", st.FormatVersion, st.VaultID[:12], st.Created.Format("2006-01-02"))
	fmt.Fprintf(w, "memories       %d live (%d yours, %d reference, %d in packs), %d superseded\n", st.Live, st.OrganicRecords, st.ReferenceRecords, st.PackRecords, st.Superseded)
	fmt.Fprintf(w, "namespaces     %d\n", st.Namespaces)
	fmt.Fprintf(w, "relations      %d\n", st.Relations)
	fmt.Fprintf(w, "audit          %d entries, head %s\n", st.AuditEntries, st.AuditHead)
	model := st.Model.Pinned
	if model == "" {
		model = "none (literal search only)"
	}
	fmt.Fprintf(w, "model          %s\n", model)
	var slots []string
	for _, s := range st.Slots {
		slots = append(slots, fmt.Sprintf("%s (argon2id t=%d m=%dMiB p=%d)", s.Kind, s.Time, s.MemoryKiB/1024, s.Threads))
	}
	fmt.Fprintf(w, "key slots      %s\n", strings.Join(slots, "; "))
	fmt.Fprintf(w, "file           %s: %d items compacted, journal %d frames (%s)\n", Bytes(st.FileBytes), st.PayloadItems, st.JournalFrames, Bytes(st.JournalBytes))
	if st.Signed {
		fmt.Fprintln(w, "signed         yes (check with `compartment verify`)")
	}
	if st.TornTail != nil {
		fmt.Fprintf(w, "recovered      a write interrupted by a crash was dropped (%d bytes at offset %d)\n", st.TornTail.Bytes, st.TornTail.Offset)
	}
}

// LockedStatus is a locked vault's status block: its size, whether
// unlocking needs the keyfile, and how to unlock.
func LockedStatus(w io.Writer, st api.Status) {
	fmt.Fprintf(w, "vault          %s (locked)\n", st.Path)
	fmt.Fprintf(w, "file           %s\n", Bytes(st.FileBytes))
	if st.KeyfileRequired {
		fmt.Fprintln(w, "two-factor     on: unlocking needs the passphrase and the keyfile")
	} else {
		fmt.Fprintln(w, "two-factor     off: the passphrase alone unlocks")
	}
	fmt.Fprintln(w, "unlock         `compartment unlock` opens it for every command and agent of yours until reboot or `compartment lock`")
}

// Verify is verify's report: structure, seals, signature, torn tail,
// audit chain, problems.
func Verify(w io.Writer, out vault.FileCheck) {
	r := out.File
	fmt.Fprintf(w, "structure      %d frames, format version %d\n", r.Frames, r.Header.Version)
	if r.TagsChecked {
		fmt.Fprintln(w, "seals          every sealed item opened and authenticated")
	} else {
		fmt.Fprintln(w, "seals          not checked (locked: set COMPARTMENT_PASSPHRASE or unlock first)")
	}
	switch {
	case !r.Signed:
		fmt.Fprintln(w, "signature      none (sign with `compartment lock --sign`)")
	case !r.SignatureOK:
		fmt.Fprintf(w, "signature      INVALID (signer %s)\n", out.Signer)
	case !r.SignedCurrent:
		fmt.Fprintf(w, "signature      valid for an earlier state; written to since (signer %s)\n", out.Signer)
	default:
		who := "not your key"
		if out.SignerIsYou {
			who = "your identity key"
		}
		fmt.Fprintf(w, "signature      valid (signer %s, %s)\n", out.Signer, who)
	}
	if r.Torn != nil {
		fmt.Fprintf(w, "torn tail      a write interrupted by a crash (%d bytes at offset %d): not acknowledged, dropped on open and cut by the next write\n", r.Torn.Bytes, r.Torn.Offset)
	}
	if out.Audit != nil {
		if out.Audit.OK {
			fmt.Fprintf(w, "audit chain    %d entries, intact\n", out.Audit.Entries)
		} else {
			fmt.Fprintf(w, "audit chain    %d breaks, %d items without an entry (run `compartment audit verify` for details)\n", len(out.Audit.Breaks), len(out.Audit.Unaudited))
		}
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "problem        %s\n", p)
	}
}

// Unlocked says what an unlock did (once: only one process was to be
// let in) and when the vault auto-locks.
func Unlocked(w io.Writer, res session.Unlocked, once bool) {
	st, already := res.State, res.Already
	idle := "never auto-locks (auto_lock_minutes = 0)"
	if st.AutoLock > 0 {
		idle = "auto-locks after " + st.AutoLock.String() + " without use"
	}
	switch {
	case already && once:
		fmt.Fprintln(w, "already unlocked for every process; run `compartment lock` first to let only one in")
	case already:
		fmt.Fprintf(w, "already unlocked; %s\n", idle)
	case st.Once:
		fmt.Fprintln(w, "unlocked for one process: the next command or agent to open the vault takes the key; everyone else still finds it locked")
	default:
		fmt.Fprintf(w, "unlocked: every command and agent of yours on this machine can use the vault until reboot or `compartment lock`; it %s\n", idle)
	}
}

// KeychainUnlocked says what `unlock --keychain` did.
func KeychainUnlocked(w io.Writer) {
	fmt.Fprintln(w, "unlocked with the key in your login keychain: it stays unlocked across reboots until `compartment lock` (agents already running keep the key until they restart)")
}

// Locked says what a lock did: flushed, signed, locked.
func Locked(w io.Writer, l api.Locked) {
	if l.Flushed {
		fmt.Fprintln(w, "vault flushed and compacted")
	}
	if l.Signer != "" {
		fmt.Fprintf(w, "signed with identity key %s\n", l.Signer)
	}
	fmt.Fprintln(w, "locked: every process of yours drops the key before its next call; `compartment unlock` opens it again")
}

// TwoFactorEnabled says where the keyfile is and how to keep it; a
// keyfile in the vault's own directory is warned about on errw.
func TwoFactorEnabled(out, errw io.Writer, t session.TwoFactor, inVaultDir bool) {
	if t.Generated {
		fmt.Fprintf(out, "generated a %d-byte keyfile at %s\n", session.NewKeyfileBytes, t.Keyfile)
	}
	fmt.Fprintf(out, "two-factor unlock is on: the passphrase alone no longer opens the vault; the keyfile at %s is also needed (its location is remembered)\n", t.Keyfile)
	fmt.Fprintln(out, "keep a copy of the keyfile somewhere safe: without it the vault cannot be opened")
	if inVaultDir {
		fmt.Fprintf(errw, "warning: the keyfile is in the vault's directory, so a copy of that directory carries both factors: move it to separate media (a USB stick) and unlock once with --keyfile NEWPATH\n")
	} else if t.Default {
		fmt.Fprintln(out, "it is outside the vault's directory; for the strongest setup move it to separate media (a USB stick) and unlock once with --keyfile NEWPATH")
	}
}

// TwoFactorStatus says whether a keyfile is required and where it is.
func TwoFactorStatus(w io.Writer, t session.TwoFactor) {
	if !t.Enabled {
		fmt.Fprintln(w, "two-factor unlock  off (turn it on with `compartment 2fa enable`)")
		return
	}
	fmt.Fprintln(w, "two-factor unlock  on: passphrase and keyfile")
	switch {
	case t.Keyfile == "":
		fmt.Fprintln(w, "keyfile            location not remembered: pass --keyfile PATH when unlocking")
	case t.Present:
		fmt.Fprintf(w, "keyfile            %s (present)\n", t.Keyfile)
	default:
		fmt.Fprintf(w, "keyfile            %s (MISSING: attach the media that holds it)\n", t.Keyfile)
	}
}

// Created is init's report on the new vault (the unlock line and the
// rest of init's steps follow it).
func Created(w io.Writer, path string) {
	fmt.Fprintf(w, "Created an encrypted vault at %s\n", path)
	fmt.Fprintf(w, "Settings and grants: %s\n", vault.ConfigPath(path))
}

// UnlockedAfterInit is init's line about the unlock session it opened
// with the new passphrase (err: it could not).
func UnlockedAfterInit(w io.Writer, err error) {
	if err != nil {
		fmt.Fprintf(w, "The vault is locked (%v): run `compartment unlock` before storing.\n", err)
		return
	}
	fmt.Fprintln(w, "Unlocked for your agents and commands until reboot or `compartment lock`.")
}

// Import is import's one-line report and a line for each kind of
// record it skipped.
func Import(w io.Writer, rep api.Import) {
	res := rep.ImportResult
	fmt.Fprintf(w, "imported %d memories and %d relations from %d lines in %.1f s (%.0f lines/s", res.Stored, res.Relations, res.Lines, rep.Seconds, rep.LinesPerS)
	if rep.PeakRSSMB > 0 {
		fmt.Fprintf(w, ", peak memory %.0f MB", rep.PeakRSSMB)
	}
	fmt.Fprintln(w, ")")
	if res.Present > 0 {
		fmt.Fprintf(w, "  skipped %d already in the vault (same id, claim or relation)\n", res.Present)
	}
	if res.Reference > 0 {
		fmt.Fprintf(w, "  skipped %d reference facts: the vault has its own (`compartment reference update` refreshes them)\n", res.Reference)
	}
	if res.Packs > 0 {
		fmt.Fprintf(w, "  skipped %d pack records: packs are installed whole and signed, with `compartment pack install`\n", res.Packs)
	}
}

// PackWritten says where a signed pack was written and how recipients
// install it.
func PackWritten(w io.Writer, p vault.PackWritten) {
	fmt.Fprintf(w, "Wrote %s: pack %q version %s, %d memories, signed by %s\n", p.Path, p.Name, p.Version, p.Memories, vault.Fingerprint(p.Signer))
	fmt.Fprintf(w, "Recipients install it with: compartment pack install %s --trusted-key %x\n", p.Path, []byte(p.Signer))
}

// PackInstalled says what installing a pack changed.
func PackInstalled(w io.Writer, p api.PackInstalled) {
	fmt.Fprintf(w, "Installed pack %q version %s (signed by %s) under %s: %d added, %d removed, %d unchanged\n",
		p.Name, p.Version, p.Author, p.Namespace, p.Result.Added, p.Result.Removed, p.Result.Kept)
}

// Packs lists the installed packs.
func Packs(w io.Writer, packs []vault.PackInfo) {
	if len(packs) == 0 {
		fmt.Fprintln(w, "no packs installed")
		return
	}
	for _, p := range packs {
		fmt.Fprintf(w, "%-20s %-12s %6d memories  signed by %s\n", p.Name, p.Version, p.Memories, p.Author)
	}
}

// Reference says what loading the bundled reference facts changed.
func Reference(w io.Writer, r api.Reference) {
	fmt.Fprintf(w, "Reference facts: %d added, %d removed, %d unchanged (pack %s, %.1fs)\n",
		r.Reference.Added, r.Reference.Removed, r.Reference.Kept, r.Version[:12], r.Seconds)
}
