package main

import (
	"errors"
	"fmt"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/render"
)

// SetupCmd groups one-time installation steps.
type SetupCmd struct {
	DownloadModel       SetupDownloadModelCmd       `cmd:"" name:"download-model" help:"Install an ONNX embedding model (default bge-small-en-v1.5 int8), checked against its pinned SHA-256."`
	AirgapBundle        SetupAirgapBundleCmd        `cmd:"" name:"airgap-bundle" help:"Write everything a machine with no network needs to install compartment into one .tar.gz."`
	VerifyBundle        SetupVerifyBundleCmd        `cmd:"" name:"verify-bundle" help:"Check an unpacked airgap bundle: every file listed and matching, the signatures by a trusted release key (install.sh runs this)."`
	DownloadLongMemEval SetupDownloadLongMemEvalCmd `cmd:"" name:"download-longmemeval" help:"Install the LongMemEval_S benchmark file, checked against its pinned SHA-256."`
}

// SetupDownloadModelCmd installs a model from the network or from local
// files.
type SetupDownloadModelCmd struct {
	Name    string `arg:"" optional:"" help:"Model to install (default bge-small-en-v1.5-int8)."`
	From    string `help:"Install from the files in this directory; nothing is downloaded." type:"path" placeholder:"DIR"`
	Default bool   `help:"Make it the default model. Vaults embedded with another model then need 'compartment reindex --re-embed'."`
	JSON    bool   `help:"Print JSON: name, dir, sha256, dim, default." name:"json"`
}

func (c *SetupDownloadModelCmd) Run(app *App) error {
	if c.From == "" && app.AssertOffline {
		return errors.New("setup: downloading a model needs the network, which --assert-offline forbids; use --from DIR")
	}
	opts := embed.InstallOptions{From: c.From}
	if !c.JSON {
		opts.Progress = app.Stderr
	}
	m, dir, err := embed.Install(c.Name, opts)
	if err != nil {
		return err
	}
	pin, err := m.Pin()
	if err != nil {
		return err
	}
	if c.Default {
		if err := embed.SetDefaultModel(embed.DefaultModelsDir(), m.Name); err != nil {
			return err
		}
	}
	if c.JSON {
		return render.JSON(app.Stdout, map[string]any{"name": m.Name, "dir": dir, "sha256": embed.FormatPin(pin),
			"dim": m.Dim, "default": c.Default})
	}
	fmt.Fprintf(app.Stdout, "%s installed in %s\nsha256 (pin) %s, %d dimensions, %s pooling, licence %s\n",
		m.Name, dir, embed.FormatPin(pin), m.Dim, m.Pooling, m.Licence)
	if c.Default {
		fmt.Fprintf(app.Stdout, "now the default model; vaults embedded with another model need `compartment reindex --re-embed`\n")
	} else {
		fmt.Fprintf(app.Stdout, "use it with --model %s, or make it the default with --default\n", m.Name)
	}
	return nil
}
