#!/usr/bin/env bash
# Prints the INSTALL.txt that goes into a release archive for one system
# (linux, darwin or windows). Kept short: README.md, beside it, has the rest.
set -euo pipefail
os=${1:?usage: install-text.sh linux|darwin|windows}
cat <<'TXT'
compartment: encrypted, offline, persistent memory for AI agents

This archive holds one program, compartment, and compartment.sig, the
release signature that `compartment update` checks. Nothing else is needed:
the embedding model is inside the binary and it never uses the network.

TXT
case "$os" in
linux)
	cat <<'TXT'
Install (Linux):
    install -m 0755 compartment/compartment ~/.local/bin/compartment
    compartment init            # choose a passphrase, create the vault
    compartment unlock          # unlocked until reboot, lock or auto-lock
TXT
	;;
darwin)
	cat <<'TXT'
Install (macOS):
    install -m 0755 compartment/compartment /usr/local/bin/compartment
    xattr -d com.apple.quarantine /usr/local/bin/compartment   # if Gatekeeper refuses it
    compartment init
Unlocking until reboot needs Linux; on macOS give agents the passphrase in
COMPARTMENT_PASSPHRASE (or type it when asked).
TXT
	;;
windows)
	cat <<'TXT'
Install (Windows, PowerShell):
    New-Item -ItemType Directory -Force $env:LOCALAPPDATA\compartment | Out-Null
    Copy-Item compartment\compartment.exe $env:LOCALAPPDATA\compartment\
    # add that folder to your PATH, then:
    compartment init
Unlocking until reboot needs Linux; on Windows give agents the passphrase in
COMPARTMENT_PASSPHRASE. The shared embedding daemon is Unix-only: each
process loads the model itself.
TXT
	;;
esac
cat <<'TXT'

Update: compartment update --from compartment_<version>_<os>_<arch>.tar.gz
(checks the signature and the vault format, then replaces the binary).
Uninstall: delete the binary; your memories are in ~/.compartment/
(delete that folder only if you want them gone).
TXT
