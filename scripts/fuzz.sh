#!/usr/bin/env bash
# Runs every Fuzz target in the module for the given number of seconds each.
# A target fails the run only when it finds a failing input (written under
# the package's testdata/fuzz/, as `go test -fuzz` does); the fuzzing
# engine's own time-outs on a loaded machine ("context deadline exceeded"
# while it minimises a new input) are reported and retried once, since they
# say nothing about our code. Minimising a new input gets a quarter of the
# time, so the engine keeps to the time given.
#
# Two targets run at a time, each with one worker (FUZZ_JOBS changes it):
# on two cores, each target gets what one target with two workers got, in
# half the wall time.
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
cache=$(go env GOCACHE)/fuzz
root=$(pwd)

jobs_max=${FUZZ_JOBS:-2}
results=$(mktemp -d)
trap 'rm -rf "$bins" "$results"' EXIT

# fuzz_one fuzzes one target with one worker and prints its log when done,
# so two targets' logs do not interleave. A failure is marked in $results.
fuzz_one() {
	local dir=$1 bin=$2 importpath=$3 target=$4 attempt log
	for attempt in 1 2; do
		log=$(mktemp)
		echo "== fuzz ./$dir $target (${secs}s)" >"$log"
		if (cd "$root/$dir" && "$bin" -test.run '^$' -test.fuzz "^${target}\$" -test.fuzztime "${secs}s" -test.parallel 1 \
			-test.fuzzminimizetime "$((secs / 4 + 1))s" -test.fuzzcachedir "$cache/$importpath" -test.paniconexit0) >>"$log" 2>&1; then
			cat "$log"
			rm -f "$log"
			return 0
		fi
		cat "$log"
		if grep -q 'Failing input written to' "$log" || ! grep -q 'context deadline exceeded' "$log"; then
			echo "fuzz: ./$dir $target FAILED" >&2
			touch "$results/failed"
			rm -f "$log"
			return 1
		fi
		rm -f "$log"
		echo "fuzz: ./$dir $target: the fuzzing engine timed out (no failing input); $([ $attempt = 1 ] && echo retrying || echo giving up on this target)" >&2
	done
}

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
		# Two targets at a time, one worker each: on two cores the same
		# fuzzing work per target second as one target with two workers.
		while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
		fuzz_one "$dir" "$bin" "$importpath" "$target" &
	done
	wait
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | grep -v node_modules | xargs -n1 dirname | sed 's|^\./||' | sort -u)
[ -e "$results/failed" ] && status=1
exit $status
