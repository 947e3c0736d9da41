#!/usr/bin/env bash
# Type-checks and vets the whole module, tests included, for every system a
# release ships to, without cgo (ONNX Runtime is optional; the bundled
# static model needs no cgo). go vet compiles each package for the target,
# so a missing counterpart of Linux-only code fails here, on Linux.
# `make release` then builds and links the binaries themselves.
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
exit $status
