#!/usr/bin/env bash
# sets: test
# Go tools `make lint` runs, and the modules its go.mod check consults, so
# lint and tests work later with GOPROXY=off.
#
# staticcheck is pinned: honnef.co/go/tools v0.8.2 is staticcheck 2026.2.2,
# the first line of releases built for Go 1.26 (its go.mod says go 1.26.0).
# Raise it together with the go line in go.mod. Installed into .cache/bin.
set -euo pipefail
cd "$(dirname "$0")/../.."

staticcheck_version=v0.8.2
bin=.cache/bin
mkdir -p "$bin"

# `go mod tidy -diff` reads the go.mod of every module that the tests of our
# dependencies import; fetching them now lets lint run offline later.
go mod tidy -diff >/dev/null 2>&1 || true

want="(${staticcheck_version#v})"
if [ -x "$bin/staticcheck" ] && "$bin/staticcheck" -version 2>/dev/null | grep -qF "$want"; then
	echo "staticcheck $staticcheck_version: already installed ($bin/staticcheck)"
	exit 0
fi
GOBIN="$PWD/$bin" go install "honnef.co/go/tools/cmd/staticcheck@${staticcheck_version}"
echo "staticcheck $staticcheck_version: installed $bin/staticcheck ($("$bin/staticcheck" -version))"
