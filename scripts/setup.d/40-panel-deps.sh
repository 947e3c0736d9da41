#!/usr/bin/env bash
# sets: test
# lane: apt
# What the desktop panel (cmd/compartment-panel, Gio) needs: a C compiler
# and pkg-config for cgo; the X11, xkbcommon, Wayland, EGL and Vulkan
# headers Gio's window compiles against (OpenGL ES and Vulkan themselves are
# loaded at run time); Mesa's EGL, GLES and software (llvmpipe) drivers,
# which also draw --render without a display; and for its tests Xvfb (a
# display with no screen), xdotool (synthetic X input) and ImageMagick
# (screenshots of the real window). Idempotent: skipped when every package
# is installed. Without apt-get it says what to install and stops the
# setup, because `make build` builds the panel.
set -euo pipefail

pkgs=(gcc libc6-dev pkg-config libx11-dev libx11-xcb-dev libxkbcommon-dev libxkbcommon-x11-dev libxcursor-dev libxfixes-dev
	libwayland-dev libegl-dev libvulkan-dev libegl-mesa0 libgles2 libgl1-mesa-dri xvfb xdotool imagemagick)
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
