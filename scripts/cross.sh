#!/usr/bin/env bash
# Type-checks and vets the whole module, tests included, for every system a
# release ships to, without cgo (ONNX Runtime is optional; the bundled
# static model needs no cgo). go vet compiles each package for the target,
# so a missing counterpart of Linux-only code fails here, on Linux.
# linux/arm64 is also linked and its --version run under qemu-user when
# qemu-aarch64-static is installed (scripts/setup.d/60-qemu-user.sh).
# `make release` builds and signs all the binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=${CROSS_TARGETS:-"linux/arm64 darwin/arm64 darwin/amd64 windows/amd64"}
status=0
for t in $targets; do
	echo "== vet GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0"
	if ! GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0 go vet ./...; then
		echo "cross: $t does not build or vet" >&2
		status=1
	fi
done

if [[ " $targets " == *" linux/arm64 "* ]]; then
	if command -v qemu-aarch64-static >/dev/null; then
		tmp=$(mktemp -d)
		trap 'rm -rf "$tmp"' EXIT
		GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build -ldflags "-X main.version=cross-check" -o "$tmp/compartment" ./cmd/compartment
		got=$(qemu-aarch64-static "$tmp/compartment" --version) || got="(failed to run)"
		if [ "$got" = cross-check ]; then
			echo "== linux/arm64 binary runs under qemu-aarch64-static: --version = $got"
		else
			echo "cross: linux/arm64 binary under qemu printed '$got', want 'cross-check'" >&2
			status=1
		fi
	else
		echo "== linux/arm64 not run: qemu-aarch64-static is not installed (make setup installs it where apt works)"
	fi
fi
exit $status
