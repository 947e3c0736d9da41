#!/usr/bin/env bash
# Runs every Fuzz target in the module for the given number of seconds each.
# A target fails the run only when it finds a failing input (Go writes it
# under the package's testdata/fuzz/); the fuzzing engine's own time-outs on
# a loaded machine ("context deadline exceeded" while it minimises a new
# input) are reported and retried once, since they say nothing about our
# code. Minimising a new input gets a quarter of the time, so the engine
# keeps to the time given.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
status=0
while read -r file; do
	pkg=./$(dirname "${file#./}")
	for target in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //'); do
		for attempt in 1 2; do
			echo "== fuzz $pkg $target (${secs}s)"
			log=$(mktemp)
			if go test -run '^$' -fuzz "^${target}\$" -fuzztime "${secs}s" -fuzzminimizetime "$(( secs / 4 + 1 ))s" "$pkg" 2>&1 | tee "$log"; then
				rm -f "$log"
				break
			fi
			if grep -q 'Failing input written to' "$log" || ! grep -q 'context deadline exceeded' "$log"; then
				echo "fuzz: $pkg $target FAILED" >&2
				status=1
				rm -f "$log"
				break
			fi
			rm -f "$log"
			echo "fuzz: $pkg $target: the fuzzing engine timed out (no failing input); $([ $attempt = 1 ] && echo retrying || echo giving up on this target)" >&2
		done
	done
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | grep -v node_modules | sort)
exit $status
