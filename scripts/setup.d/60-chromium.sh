#!/usr/bin/env bash
# sets: test
# lane: apt
# Headless Chromium from Debian for the dashboard's browser test
# (internal/dash, driven from Go with chromedp), and one font family so pages
# render text the same way everywhere. Idempotent: skipped when chromium is
# already on PATH. Without apt-get it says what to install and stops the
# setup, because CI must run the browser test rather than skip it.
set -euo pipefail

if command -v chromium >/dev/null; then
	echo "chromium: already installed ($(chromium --version 2>/dev/null || echo chromium))"
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "chromium: install Chromium (the dashboard's browser test needs it) and put \`chromium\` on PATH" >&2
	exit 1
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
pkgs=(chromium fonts-dejavu-core)
$sudo apt-get install -y --no-install-recommends "${pkgs[@]}" ||
	{ $sudo apt-get update && $sudo apt-get install -y --no-install-recommends "${pkgs[@]}"; }
echo "chromium: installed ($(chromium --version 2>/dev/null || echo chromium))"
