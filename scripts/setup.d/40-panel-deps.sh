#!/usr/bin/env bash
# What the desktop panel (cmd/compartment-panel, Fyne) needs: a C compiler
# for cgo, the OpenGL and X11 headers its GLFW driver compiles against, and
# for its tests Xvfb (a display with no screen), xauth, xwd and ImageMagick
# (screenshots of the real window). Idempotent: skipped when every package
# is installed. Without apt-get it says what to install and stops the
# setup, because `make build` builds the panel.
set -euo pipefail

pkgs=(gcc libc6-dev libgl1-mesa-dev libgl1-mesa-dri xorg-dev libxxf86vm-dev xvfb xauth x11-apps imagemagick)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} = 0 ]; then
	echo "panel deps: already installed"
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "panel deps: install ${missing[*]} (the panel's build and tests need them)" >&2
	exit 1
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y --no-install-recommends "${missing[@]}" ||
	{ $sudo apt-get update && $sudo apt-get install -y --no-install-recommends "${missing[@]}"; }
echo "panel deps: installed ${missing[*]}"
