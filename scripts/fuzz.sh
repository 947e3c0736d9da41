#!/usr/bin/env bash
# Runs every Fuzz target in the module for the given number of seconds each.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r file; do
	pkg=./$(dirname "${file#./}")
	for target in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //'); do
		echo "== fuzz $pkg $target (${secs}s)"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "${secs}s" "$pkg"
	done
done
