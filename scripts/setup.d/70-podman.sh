#!/usr/bin/env bash
# podman (Debian), so `make test` builds the container image of the
# Dockerfile (cmd/compartment/container_test.go, via scripts/container.sh:
# FROM scratch, no registry). Optional: without it that test skips with a
# message.
set -euo pipefail
if command -v podman >/dev/null; then
	echo "podman: already installed ($(podman --version))"
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "podman: no apt-get here; the container image test will be skipped"
	exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
if $sudo apt-get install -y --no-install-recommends podman >/dev/null ||
	{ $sudo apt-get update >/dev/null && $sudo apt-get install -y --no-install-recommends podman >/dev/null; }; then
	echo "podman: installed ($(podman --version))"
else
	echo "podman: could not be installed; the container image test will be skipped"
fi
