#!/usr/bin/env bash
# sets: test onnx
# ONNX Runtime for the ONNX embedding backend (embed/onnx*.go).
#
# The shared library comes from the npm package onnxruntime-node, pinned to
# the ORT release that github.com/yalue/onnxruntime_go v1.27.0 is built for.
# The package tarball is fetched with `npm pack` (no install scripts run), the
# x64 Linux library is taken out of it and checked against a pinned SHA-256,
# then installed where compartment looks for it:
#   .cache/lib/libonnxruntime.so.1.24.1   (this checkout: tests, bin/compartment)
#   ~/.compartment/lib/libonnxruntime.so.1.24.1   (an installed binary)
# COMPARTMENT_ORT_LIB overrides both at run time. Idempotent: a second run
# only re-hashes the installed files. Without this library only the ONNX
# models are unavailable; the bundled static model never needs it.
set -euo pipefail
cd "$(dirname "$0")/../.."

version=1.24.1
package="onnxruntime-node@${version}"
member="package/bin/napi-v6/linux/x64/libonnxruntime.so.1"
# SHA-256 of ${member} in onnxruntime-node-1.24.1.tgz, recorded at first download
# (npm integrity of the tarball: sha512-Ex/oUXKdhDoxvlNxBT3oYtW0MH88yYpPlXQeVQUXpcJQmN24usd/8RCoPLN5kCHwDsiZ+nqsnjciyFRl423dQw==).
want=53ef1ac028dd1b05554b8da28d9159eb3876f99868193d2aaa6e67f0243c23d4
libname="libonnxruntime.so.${version}"

case "$(uname -s)/$(uname -m)" in
Linux/x86_64) ;;
*)
	echo "onnxruntime: no pinned library for $(uname -s)/$(uname -m); ONNX models stay unavailable (set COMPARTMENT_ORT_LIB to use your own)"
	exit 0
	;;
esac

sha() { sha256sum "$1" | cut -d' ' -f1; }

targets=(".cache/lib/${libname}")
if [ -n "${HOME:-}" ]; then
	targets+=("${HOME}/.compartment/lib/${libname}")
	# The vault's home directory stays private whoever creates it first.
	[ -d "${HOME}/.compartment" ] || { mkdir -p "${HOME}" && mkdir -m 0700 "${HOME}/.compartment"; }
fi

all_good=1
for t in "${targets[@]}"; do
	if [ ! -f "$t" ] || [ "$(sha "$t")" != "$want" ]; then
		all_good=0
	fi
done
if [ "$all_good" = 1 ]; then
	echo "onnxruntime ${version}: already installed (${targets[*]})"
	exit 0
fi

cache=.cache/npm
mkdir -p "$cache"
tarball="${cache}/onnxruntime-node-${version}.tgz"
if [ ! -f "$tarball" ]; then
	command -v npm >/dev/null || { echo "onnxruntime: npm is needed to fetch ${package}" >&2; exit 1; }
	tmp=$(mktemp -d "${cache}/pack.XXXXXX")
	(cd "$tmp" && npm pack --silent "$package" >/dev/null)
	mv "$tmp"/onnxruntime-node-"${version}".tgz "$tarball"
	rmdir "$tmp"
fi

extract=$(mktemp -d "${cache}/extract.XXXXXX")
trap 'rm -rf "$extract"' EXIT
tar -xzf "$tarball" -C "$extract" "$member"
got=$(sha "$extract/$member")
if [ "$got" != "$want" ]; then
	echo "onnxruntime: ${member} has SHA-256 ${got}, expected ${want}; refusing to install" >&2
	rm -f "$tarball"
	exit 1
fi

for t in "${targets[@]}"; do
	mkdir -p "$(dirname "$t")"
	install -m 0644 "$extract/$member" "$t.tmp"
	mv -f "$t.tmp" "$t"
	ln -sfn "$libname" "$(dirname "$t")/libonnxruntime.so.1"
	echo "onnxruntime ${version}: installed $t"
done
