#!/usr/bin/env bash
# Runs every Fuzz target in the module for the given number of seconds each.
# A target fails the run only when it finds a failing input (written under
# the package's testdata/fuzz/, as `go test -fuzz` does); the fuzzing
# engine's own time-outs on a loaded machine ("context deadline exceeded"
# while it minimises a new input) are reported and retried once, since they
# say nothing about our code. Minimising a new input gets a quarter of the
# time, so the engine keeps to the time given.
#
# Each package's instrumented test binary is built once (`go test -c
# -fuzz`) and run once per target, in the package's directory with the
# fuzz cache `go test -fuzz` uses: the same run, without a build and a link
# per target.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
status=0
bins=$(mktemp -d)
trap 'rm -rf "$bins"' EXIT
cache=$(go env GOCACHE)/fuzz
root=$(pwd)

while read -r dir; do
	pkg=./$dir
	targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go | sed 's/^func //' | sort)
	importpath=$(go list "$pkg")
	bin=$bins/$(echo "$importpath" | tr / _).test
	echo "== fuzz: building $pkg"
	if ! go test -c -fuzz . -o "$bin" "$pkg"; then
		echo "fuzz: $pkg does not build" >&2
		status=1
		continue
	fi
	for target in $targets; do
		for attempt in 1 2; do
			echo "== fuzz $pkg $target (${secs}s)"
			log=$(mktemp)
			if (cd "$root/$dir" && "$bin" -test.run '^$' -test.fuzz "^${target}\$" -test.fuzztime "${secs}s" \
				-test.fuzzminimizetime "$((secs / 4 + 1))s" -test.fuzzcachedir "$cache/$importpath" -test.paniconexit0) 2>&1 | tee "$log"; then
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
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | grep -v node_modules | xargs -n1 dirname | sed 's|^\./||' | sort -u)
exit $status
