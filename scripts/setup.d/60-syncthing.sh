#!/usr/bin/env bash
# lane: apt
# Syncthing and rsync from Debian for the sync tests (internal/devsync):
# two real Syncthing instances on 127.0.0.1 move a sync folder between two
# vaults, and rsync copies one in random order as any other engine would.
# Idempotent: skipped when both are already on PATH. Without apt-get it
# says what to install and stops the setup, because CI must run the sync
# tests rather than skip them.
set -euo pipefail

if command -v syncthing >/dev/null && command -v rsync >/dev/null; then
	echo "syncthing, rsync: already installed ($(syncthing --version 2>/dev/null | head -1))"
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "syncthing, rsync: install both (the sync tests need them) and put them on PATH" >&2
	exit 1
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
pkgs=(syncthing rsync)
$sudo apt-get install -y --no-install-recommends "${pkgs[@]}" >/dev/null ||
	{ $sudo apt-get update >/dev/null && $sudo apt-get install -y --no-install-recommends "${pkgs[@]}" >/dev/null; }
echo "syncthing, rsync: installed ($(syncthing --version 2>/dev/null | head -1))"
