package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/vault"
)

// StatusCmd reports on the vault.
type StatusCmd struct {
	JSON bool `help:"Print the status as JSON." name:"json"`
}

func (c *StatusCmd) Run(app *App) error {
	if err := vaultExists(app.Vault); err != nil {
		return err
	}
	if err := vault.CheckReadsSomething(app.Vault, app.Caller, "status"); err != nil {
		return err
	}
	// A locked vault is a state to report, not an error: status never
	// asks for the passphrase when no credential is at hand.
	u, ok := app.quietCredential()
	if !ok {
		return c.locked(app)
	}
	v, err := app.openVaultWith(u)
	if err != nil {
		return err
	}
	defer v.Close()
	st, err := v.Status()
	if err != nil {
		return err
	}
	if c.JSON {
		return printJSON(app.Stdout, api.StatusOf(st))
	}
	w := app.Stdout
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
	fmt.Fprintf(w, "file           %s: %d items compacted, journal %d frames (%s)\n", humanBytes(st.FileBytes), st.PayloadItems, st.JournalFrames, humanBytes(st.JournalBytes))
	if st.Signed {
		fmt.Fprintln(w, "signed         yes (check with `compartment verify`)")
	}
	if st.TornTail != nil {
		fmt.Fprintf(w, "recovered      a write interrupted by a crash was dropped (%d bytes at offset %d)\n", st.TornTail.Bytes, st.TornTail.Offset)
	}
	return nil
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// locked reports a vault no credential opens right now, and what opening
// it takes. Whether a keyfile is needed comes from the kinds of the key
// slots, which the header holds in plaintext (FORMAT.md, 2.3) for anyone
// with the file to read: nothing secret is read or told, and no key is
// derived. (Someone who alters the file can make the answer wrong, but not
// the vault open: the slot bytes are bound into each slot's seal.)
func (c *StatusCmd) locked(app *App) error {
	var size int64
	if fi, err := os.Stat(app.Vault); err == nil {
		size = fi.Size()
	}
	needKeyfile, err := session.NeedsKeyfile(app.Vault)
	if err != nil {
		return err
	}
	if c.JSON {
		return printJSON(app.Stdout, api.LockedStatus(app.Vault, size, needKeyfile))
	}
	fmt.Fprintf(app.Stdout, "vault          %s (locked)\n", app.Vault)
	fmt.Fprintf(app.Stdout, "file           %s\n", humanBytes(size))
	if needKeyfile {
		fmt.Fprintln(app.Stdout, "two-factor     on: unlocking needs the passphrase and the keyfile")
	} else {
		fmt.Fprintln(app.Stdout, "two-factor     off: the passphrase alone unlocks")
	}
	fmt.Fprintln(app.Stdout, "unlock         `compartment unlock` opens it for every command and agent of yours until reboot or `compartment lock`")
	return nil
}
