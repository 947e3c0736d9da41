package main

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/vault"
)

// PackCmd manages signed memory packs (PACKS.md).
type PackCmd struct {
	Build   PackBuildCmd   `cmd:"" help:"Sign a pack from a JSONL file of memories (one {\"text\",\"source\",...} per line)."`
	Export  PackExportCmd  `cmd:"" help:"Sign a pack from the memories of one of your namespaces."`
	Install PackInstallCmd `cmd:"" help:"Check a pack's signature against a key you trust and install it under packs/<name>."`
	Remove  PackRemoveCmd  `cmd:"" help:"Remove an installed pack."`
	List    PackListCmd    `cmd:"" help:"List installed packs."`
	Trust   PackTrustCmd   `cmd:"" help:"Add a public key to the trust list beside the vault."`
	Key     PackKeyCmd     `cmd:"" help:"Print your signing key's public half, for others to trust."`
}

// packOutput names and writes a signed pack.
type packOutput struct {
	Name    string `help:"Pack name (it installs under packs/<name>)." placeholder:"NAME"`
	Version string `name:"pack-version" help:"Pack version, free form (default: today's date)." placeholder:"VERSION"`
	Output  string `short:"o" help:"Where to write the pack (default NAME.mpack)." type:"path" placeholder:"FILE"`
}

func (o packOutput) write(app *App, mems []vault.PackMemory, model string) error {
	w, err := vault.WritePackFile(mems, vault.PackMeta{Name: o.Name, Version: o.Version, Model: model}, compartmentHome(), o.Output)
	if err != nil {
		return err
	}
	render.PackWritten(app.Stdout, w)
	return nil
}

// PackBuildCmd signs a pack from a JSONL file.
type PackBuildCmd struct {
	File string `arg:"" help:"JSONL file: one memory per line." type:"existingfile"`
	packOutput
}

func (c *PackBuildCmd) Run(app *App) error {
	if c.Name == "" {
		c.Name = strings.TrimSuffix(path.Base(c.File), path.Ext(c.File))
	}
	f, err := os.Open(c.File)
	if err != nil {
		return err
	}
	defer f.Close()
	mems, err := vault.ReadPackJSONL(f, c.File)
	if err != nil {
		return err
	}
	return c.write(app, mems, "")
}

// PackExportCmd signs a pack from one of the user's namespaces.
type PackExportCmd struct {
	Namespace string `arg:"" help:"The namespace whose live memories go into the pack."`
	packOutput
}

func (c *PackExportCmd) Run(app *App) error {
	if c.Name == "" {
		c.Name = strings.ToLower(path.Base(c.Namespace))
	}
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	mems, err := v.PackMemories(c.Namespace)
	if err != nil {
		return err
	}
	if len(mems) == 0 {
		return fmt.Errorf("namespace %q has no memories of yours to export", c.Namespace)
	}
	st, err := v.Status()
	if err != nil {
		return err
	}
	return c.write(app, mems, st.Model.Pinned)
}

// PackInstallCmd verifies and installs a pack.
type PackInstallCmd struct {
	File       string   `arg:"" help:"The .mpack file." type:"existingfile"`
	TrustedKey []string `help:"A public key (64 hex digits) to trust for this install, besides the trust list." placeholder:"KEY"`
	Replace    bool     `help:"Let this pack replace an installed pack of the same name signed by another key (the name then belongs to this pack's key)."`
	JSON       bool     `help:"Print the result as JSON." name:"json"`
}

func (c *PackInstallCmd) Run(app *App) error {
	p, err := vault.ReadPackFile(c.File, app.Vault, c.TrustedKey)
	if err != nil {
		return err
	}
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	res, err := v.InstallPackWith(p, vault.PackInstall{Replace: c.Replace})
	if err != nil {
		return fmt.Errorf("refused %s: %w", c.File, err)
	}
	m := p.Manifest
	out := api.PackInstalled{Author: vault.Fingerprint(m.Author), Name: m.Name, Namespace: vault.PackNamespace(m.Name),
		Result: res, Version: m.Version}
	if c.JSON {
		return render.JSON(app.Stdout, out)
	}
	render.PackInstalled(app.Stdout, out)
	return nil
}

// PackRemoveCmd removes an installed pack.
type PackRemoveCmd struct {
	Name string `arg:"" help:"The pack's name (as pack list shows it)."`
}

func (c *PackRemoveCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	res, err := v.RemovePack(c.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(app.Stdout, "Removed pack %q: %d memories\n", c.Name, res.Removed)
	return nil
}

// PackListCmd lists installed packs.
type PackListCmd struct {
	JSON bool `help:"Print the packs as JSON." name:"json"`
}

func (c *PackListCmd) Run(app *App) error {
	v, err := app.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	packs, err := v.Packs()
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, api.PackList{IncludePacksInSearch: v.Config().Settings.IncludePacksInSearch, Packs: packs})
	}
	render.Packs(app.Stdout, packs)
	return nil
}

// PackTrustCmd adds a key to the trust list.
type PackTrustCmd struct {
	Key  string `arg:"" help:"The author's public key, 64 hex digits."`
	Name string `arg:"" optional:"" help:"Who it belongs to (a note for you)."`
}

func (c *PackTrustCmd) Run(app *App) error {
	k, err := vault.ParsePublicKey(c.Key)
	if err != nil {
		return err
	}
	path := vault.TrustedKeysPath(app.Vault)
	if err := vault.AddTrustedKey(path, k, c.Name); err != nil {
		return err
	}
	fmt.Fprintf(app.Stdout, "Trusting packs signed by %s (%s), listed in %s\n", vault.Fingerprint(k), hex.EncodeToString(k), path)
	return nil
}

// PackKeyCmd prints the user's public signing key.
type PackKeyCmd struct{}

func (c *PackKeyCmd) Run(app *App) error {
	key, err := vault.LoadIdentity(compartmentHome())
	if err != nil {
		return err
	}
	pub := key.Public().(ed25519.PublicKey)
	fmt.Fprintf(app.Stdout, "%x\n", []byte(pub))
	fmt.Fprintf(app.Stderr, "fingerprint %s; the private half is %s\n", vault.Fingerprint(pub), compartmentHome()+"/identity.ed25519")
	return nil
}
