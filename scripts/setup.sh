#!/usr/bin/env bash
# Runs the steps a fresh machine needs, in name order. Each step is
# idempotent: it checks before it installs, so a second run is quick. A step
# still running after 15 seconds says so every 15 seconds, so a first run
# (Go modules, npm packages) is never silent for minutes.
#
#   scripts/setup.sh        every step: what running and the tests need (make setup, make test)
#   scripts/setup.sh run    only what running needs (make run): the steps whose
#                           "# sets:" line names run; with WITH_ONNX=1 also those
#                           naming onnx (the ONNX runtime: only ONNX models need it)
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
for step in scripts/setup.d/*.sh; do
	[ -e "$step" ] || continue
	name=$(basename "$step" .sh)
	wanted "$step" || continue
	echo "== setup: $name"
	start=$(date +%s)
	bash "$step" &
	pid=$!
	(
		while sleep 15; do
			kill -0 "$pid" 2>/dev/null || exit 0
			echo "   ... $name still running ($(($(date +%s) - start)) s)"
		done
	) &
	beat=$!
	status=0
	wait "$pid" || status=$?
	kill "$beat" 2>/dev/null || true
	wait "$beat" 2>/dev/null || true
	[ "$status" = 0 ] || { echo "== setup: $name failed (exit $status)" >&2; exit "$status"; }
	took=$(($(date +%s) - start))
	[ "$took" -lt 15 ] || echo "   $name took ${took} s"
done
if [ "$set_name" = run ]; then
	echo "== setup: done (what running needs; \`make setup\` adds the test tools)"
else
	echo "== setup: done"
fi
