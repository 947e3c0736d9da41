package release

import "strings"

// InstallText is the INSTALL.txt of a release archive (bundle false) or an
// airgap bundle (bundle true) for goos. README.md has the full story; this
// is what a person unpacking the files needs first.
func InstallText(goos string, bundle bool) string {
	var b strings.Builder
	b.WriteString("compartment: encrypted, offline, persistent memory for AI agents\n\n")
	if bundle {
		b.WriteString(`This is an airgap bundle: everything a machine with no network needs.
bin/ holds the program and compartment.sig (its release signature, which
'compartment update' checks), lib/ the ONNX Runtime library where the system
has one, models/ any extra embedding models, SHA256SUMS every file's
checksum. The default embedding model is inside the program.

`)
		if goos == "windows" {
			b.WriteString(`Install (PowerShell): powershell -ExecutionPolicy Bypass -File install.ps1
It checks SHA256SUMS, copies compartment.exe to %LOCALAPPDATA%\compartment
and the models to %USERPROFILE%\.compartment\models. Add that folder to PATH.
`)
		} else {
			b.WriteString(`Install: sh install.sh        (PREFIX=/usr/local sh install.sh for everyone)
It checks SHA256SUMS, puts compartment in $PREFIX/bin (default ~/.local/bin),
the library in ~/.compartment/lib and the models in ~/.compartment/models.
`)
		}
	} else {
		b.WriteString(`This archive holds one program, compartment, and compartment.sig, the
release signature that 'compartment update' checks. Nothing else is needed:
the embedding model is inside the binary and it never uses the network.

`)
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
	}
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
