#!/usr/bin/env bash
# The checks `make lint` runs beyond gofmt and go vet: go.mod and go.sum are
# exactly what `go mod tidy` would write, and staticcheck finds nothing.
# Works offline once `make setup` has run (scripts/setup.d/20-go-tools.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! diff=$(GOPROXY=off GOFLAGS=-mod=mod go mod tidy -diff 2>&1); then
	if grep -q 'module lookup disabled' <<<"$diff"; then
		echo "lint: go mod tidy needs modules that are not in the cache; run 'make setup' first" >&2
		echo "$diff" >&2
		exit 1
	fi
	echo "lint: go.mod or go.sum is not tidy; run 'go mod tidy' and commit the result:" >&2
	echo "$diff" >&2
	exit 1
fi

sc=.cache/bin/staticcheck
if [ ! -x "$sc" ]; then
	echo "lint: $sc is missing; run 'make setup'" >&2
	exit 1
fi
# With the tag the tests are built with (Makefile TEST_TAGS), so the
# helpers only the failpoint tests use count as used.
"$sc" -tags failpoints ./...
