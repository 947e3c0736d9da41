#!/usr/bin/env bash
# sets: test
# lane: apt
# podman (Debian), so `make test` builds the container image of the
# Dockerfile (cmd/compartment/container_test.go, via scripts/container.sh:
# FROM scratch, no registry). Optional: without it that test skips with a
# message.
set -euo pipefail
exec "$(dirname "$0")/../deps/apt-optional.sh" podman podman podman
