#!/usr/bin/env bash
# sets: test
# lane: apt
# qemu-user-static (Debian), so `make test` (scripts/cross.sh) and `make
# release` run the linux/arm64 binary's --version on this amd64 machine.
# Optional: without it that one check is skipped with a message.
set -euo pipefail
exec "$(dirname "$0")/../deps/apt-optional.sh" qemu-user-static qemu-aarch64-static qemu-user-static
