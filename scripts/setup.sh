#!/usr/bin/env bash
# Runs the steps a fresh machine needs. Each step is idempotent: it checks
# before it installs, so a second run is quick. A step still running after
# 15 seconds says so every 15 seconds, so a first run (Go modules, npm
# packages) is never silent for minutes.
#
#   scripts/setup.sh        every step: what running and the tests need (make setup, make test)
#   scripts/setup.sh run    only what running needs (make run): the steps whose
#                           "# sets:" line names run; with WITH_ONNX=1 also those
#                           naming onnx (the ONNX runtime: only ONNX models need it)
#
# Steps run in two lanes at once, each in name order: the steps marked
# "# lane: apt" (Debian packages: they share dpkg's lock, so one at a time)
# and all the others (Go modules and tools, npm packages). The lanes use
# different resources (dpkg and its downloads; the Go toolchain and npm), so
# a fresh machine's setup takes about as long as its longer lane. A step's
# output is printed whole when it ends, so the lanes' lines never mix.
set -euo pipefail
cd "$(dirname "$0")/.."
set_name=${1:-all}

wanted() {
	[ "$set_name" = all ] && return 0
	local sets
	sets=$(sed -n 's/^# sets: //p' "$1" | head -n 1)
	case " $sets " in *" $set_name "*) return 0 ;; esac
	[ "$set_name" = run ] && [ "${WITH_ONNX:-0}" = 1 ] && case " $sets " in *" onnx "*) return 0 ;; esac
	return 1
}

lane_of() { sed -n 's/^# lane: //p' "$1" | head -n 1; }

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# run_step STEP: runs one step with its output in a log, a heartbeat while
# it runs, and the log printed when it ends; returns the step's status.
run_step() {
	local step=$1 name start pid beat status=0 took
	name=$(basename "$step" .sh)
	start=$(date +%s)
	echo "== setup: $name started"
	bash "$step" >"$logs/$name" 2>&1 &
	pid=$!
	(
		while sleep 15; do
			kill -0 "$pid" 2>/dev/null || exit 0
			echo "   ... $name still running ($(($(date +%s) - start)) s)"
		done
	) &
	beat=$!
	wait "$pid" || status=$?
	kill "$beat" 2>/dev/null || true
	wait "$beat" 2>/dev/null || true
	took=$(($(date +%s) - start))
	{
		echo "== setup: $name"
		sed 's/^/   /' "$logs/$name"
		if [ "$status" != 0 ]; then
			echo "== setup: $name failed (exit $status)"
		elif [ "$took" -ge 15 ]; then
			echo "   $name took ${took} s"
		fi
	}
	return "$status"
}

# run_lane STEP...: the steps in order, stopping at the first that fails.
run_lane() {
	local step
	for step in "$@"; do
		run_step "$step" || return $?
	done
}

apt_steps=() other_steps=()
for step in scripts/setup.d/*.sh; do
	[ -e "$step" ] || continue
	wanted "$step" || continue
	if [ "$(lane_of "$step")" = apt ]; then
		apt_steps+=("$step")
	else
		other_steps+=("$step")
	fi
done

status=0
run_lane "${apt_steps[@]}" &
apt_lane=$!
run_lane "${other_steps[@]}" || status=$?
wait "$apt_lane" || status=$?
if [ "$status" != 0 ]; then
	echo "== setup: failed; the step above says what went wrong" >&2
	exit "$status"
fi
if [ "$set_name" = run ]; then
	echo "== setup: done (what running needs; \`make setup\` adds the test tools)"
else
	echo "== setup: done"
fi
