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
#
# A target in CROSS_PARTIAL is vetted only in the packages whose files there
# differ from every configuration vetted whole (this machine's, as make lint
# vets it, and the targets above): darwin/amd64 shares its system's files
# with darwin/arm64 and its CPU's with linux/amd64, so the package whose
# files are exactly one of those is already type-checked as it is; today
# that leaves one package (simd) to vet, not the module for a fourth time.
targets=${CROSS_TARGETS:-"linux/arm64 darwin/arm64 windows/amd64"}
partial=${CROSS_PARTIAL:-"darwin/amd64"}
status=0
for t in $targets; do
	echo "== vet GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0"
	if ! GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0 go vet ./...; then
		echo "cross: $t does not build or vet" >&2
		status=1
	fi
done

# files prints, a line per package, the package and every file it is
# built from for GOOS/GOARCH $1 with CGO_ENABLED $2.
files() {
	GOOS=${1%/*} GOARCH=${1#*/} CGO_ENABLED=$2 go list -e \
		-f '{{.ImportPath}}|{{join .GoFiles ","}}|{{join .CgoFiles ","}}|{{join .TestGoFiles ","}}|{{join .XTestGoFiles ","}}|{{join .SFiles ","}}' ./...
}
if [ -n "$partial" ]; then
	vetted=$(mktemp)
	{
		files "$(go env GOOS)/$(go env GOARCH)" "$(go env CGO_ENABLED)"
		for t in $targets; do files "$t" 0; done
	} | sort -u >"$vetted"
	for t in $partial; do
		pkgs=$(files "$t" 0 | sort | comm -23 - "$vetted" | cut -d'|' -f1)
		echo "== vet GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0, the packages built from other files than any target above:" $pkgs
		if [ -n "$pkgs" ] && ! GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0 go vet $pkgs; then
			echo "cross: $t does not build or vet" >&2
			status=1
		fi
	done
	rm -f "$vetted"
fi

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
