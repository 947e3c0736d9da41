#!/usr/bin/env bash
# qemu-user-static (Debian), so `make test` and `make release` can run the
# linux/arm64 binary's --version on this amd64 machine. Optional: without it
# that one check is skipped with a message, everything else still runs.
set -euo pipefail
if command -v qemu-aarch64-static >/dev/null; then
	echo "qemu-user-static: already installed ($(command -v qemu-aarch64-static))"
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "qemu-user-static: no apt-get here; the linux/arm64 run check will be skipped"
	exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
if $sudo apt-get install -y --no-install-recommends qemu-user-static >/dev/null ||
	{ $sudo apt-get update >/dev/null && $sudo apt-get install -y --no-install-recommends qemu-user-static >/dev/null; }; then
	echo "qemu-user-static: installed ($(command -v qemu-aarch64-static))"
else
	echo "qemu-user-static: could not be installed; the linux/arm64 run check will be skipped"
fi
