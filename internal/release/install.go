package release

import "strings"

// BundleContents is what an airgap bundle holds, for its INSTALL.txt.
type BundleContents struct {
	Signed     bool     // bin/compartment.sig
	SumsSigned bool     // SHA256SUMS.sig
	Lib        bool     // lib/ (ONNX Runtime)
	Panel      bool     // bin/compartment-panel
	Models     []string // models/<name>
}

// BundleInstallText is the INSTALL.txt of an airgap bundle: it names
// exactly the files the bundle holds.
func BundleInstallText(goos string, c BundleContents) string {
	var b strings.Builder
	b.WriteString("compartment: encrypted, offline, persistent memory for AI agents\n\n")
	b.WriteString("This is an airgap bundle: everything a machine with no network needs.\n")
	exe := "compartment"
	if goos == "windows" {
		exe = "compartment.exe"
	}
	b.WriteString("  bin/" + exe + "            the program (the default embedding model is inside it)\n")
	if c.Signed {
		b.WriteString("  bin/compartment.sig        its release signature, which the installer and 'compartment update' check\n")
	}
	if c.Panel {
		b.WriteString("  bin/" + strings.Replace(exe, "compartment", "compartment-panel", 1) + "      the desktop panel ('compartment panel' opens it)\n")
	}
	if c.Lib {
		b.WriteString("  lib/                       the ONNX Runtime library\n")
	}
	for _, m := range c.Models {
		b.WriteString("  models/" + m + "/   an extra embedding model\n")
	}
	b.WriteString("  SHA256SUMS                 every file's checksum; the installer installs only the files it lists\n")
	if c.SumsSigned {
		b.WriteString("  SHA256SUMS.sig             its signature by the release key\n")
	}
	b.WriteString("\n")
	b.WriteString(installParagraph(goos, c))
	if c.SumsSigned && c.Signed {
		b.WriteString(`The signatures are checked with the release keys of the compartment already
installed here, else (a first install) of the bundle's own program: compare
the signing key the installer prints with the release key you were given, or
set COMPARTMENT_RELEASE_PUB to a file holding it (64 hex digits).
`)
	} else {
		b.WriteString(`This bundle is not signed (made from a development build or without the
release key): the installer refuses it unless you allow it explicitly,
COMPARTMENT_ALLOW_UNSIGNED=1, which you should do only for a bundle you made.
`)
	}
	return b.String() + nextSteps(goos)
}

// installParagraph says how the bundle installs, naming only what it
// holds: no signatures to check in an unsigned bundle, no library or
// models where there are none.
func installParagraph(goos string, c BundleContents) string {
	checks := "checks every checksum"
	if c.Signed || c.SumsSigned {
		checks += " and the signatures"
	}
	var places []string
	if goos == "windows" {
		places = append(places, `copies the programs to %LOCALAPPDATA%\compartment`)
		if len(c.Models) > 0 {
			places = append(places, `the models to %USERPROFILE%\.compartment\models`)
		}
		return "Install (PowerShell): powershell -ExecutionPolicy Bypass -File install.ps1\n" +
			wrap("It refuses any file SHA256SUMS does not list, "+checks+", "+joinAnd(places)+". Add that folder to PATH.")
	}
	places = append(places, "puts the programs in $PREFIX/bin (default ~/.local/bin)")
	if c.Lib {
		places = append(places, "the library in ~/.compartment/lib")
	}
	if len(c.Models) > 0 {
		places = append(places, "the models in ~/.compartment/models")
	}
	return "Install: sh install.sh        (PREFIX=/usr/local sh install.sh for everyone)\n" +
		wrap("It refuses any file SHA256SUMS does not list, "+checks+", "+joinAnd(places)+".")
}

// joinAnd joins phrases as a sentence does: "a", "a and b", "a, b and c".
func joinAnd(p []string) string {
	if len(p) < 2 {
		return strings.Join(p, "")
	}
	return strings.Join(p[:len(p)-1], ", ") + " and " + p[len(p)-1]
}

// wrap breaks text into lines of at most 78 characters, each ending in a
// newline.
func wrap(text string) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		if n > 0 && n+1+len(w) > 78 {
			b.WriteString("\n")
			n = 0
		} else if n > 0 {
			b.WriteString(" ")
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String() + "\n"
}

// ArchiveInstallText is the INSTALL.txt of a release archive, which holds
// compartment-panel too when panel is true.
func ArchiveInstallText(goos string, panel bool) string {
	var b strings.Builder
	b.WriteString("compartment: encrypted, offline, persistent memory for AI agents\n\n")
	b.WriteString(`This archive holds the program, compartment, and compartment.sig, the
release signature that 'compartment update' checks. Nothing else is needed:
the embedding model is inside the binary and it never uses the network.
`)
	if panel {
		b.WriteString("compartment-panel beside it is the desktop panel ('compartment panel' opens it);\ninstall it into the same folder.\n")
	}
	b.WriteString("\n")
	switch goos {
	case "windows":
		b.WriteString(`Install (PowerShell):
    New-Item -ItemType Directory -Force $env:LOCALAPPDATA\compartment | Out-Null
    Copy-Item compartment\compartment.exe $env:LOCALAPPDATA\compartment\
    # add that folder to your PATH
`)
	case "darwin":
		b.WriteString(`Install (macOS):
    install -m 0755 compartment/compartment /usr/local/bin/compartment
    xattr -d com.apple.quarantine /usr/local/bin/compartment   # if Gatekeeper refuses it
`)
	default:
		b.WriteString(`Install:
    install -d ~/.local/bin && install -m 0755 compartment/compartment ~/.local/bin/
`)
	}
	return b.String() + nextSteps(goos)
}

// nextSteps is what follows an install on goos.
func nextSteps(goos string) string {
	var b strings.Builder
	b.WriteString(`
Then:
    compartment init            # choose a passphrase, create the vault
`)
	switch goos {
	case "linux":
		b.WriteString("    compartment unlock          # unlocked for every process until reboot, lock or auto-lock\n")
	case "darwin":
		b.WriteString(`    compartment unlock --keychain   # opt-in: the key in your login keychain until 'compartment lock'
(Unlocking until reboot needs Linux; or give agents COMPARTMENT_PASSPHRASE.)
`)
	default:
		b.WriteString(`Unlocking until reboot needs Linux; here give agents the passphrase in
COMPARTMENT_PASSPHRASE, or type it when asked.
`)
	}
	if goos == "windows" {
		b.WriteString("The shared embedding daemon is Unix-only: each process loads the model itself.\n")
	}
	b.WriteString(`
Update: compartment update --from <release archive, airgap bundle or binary>
(checks the signature and the vault format, then replaces the binary).
Uninstall: delete the binary (and ~/.compartment/lib, ~/.compartment/models);
your memories are in ~/.compartment/memory.vault: delete that folder only if
you want them gone.
`)
	return b.String()
}
