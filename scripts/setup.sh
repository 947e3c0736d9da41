#!/usr/bin/env bash
# Runs every step a fresh machine needs, in name order. Each step is
# idempotent: it checks before it installs, so a second run is quick. A step
# still running after 15 seconds says so every 15 seconds, so a first run
# (Go modules, npm packages) is never silent for minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
for step in scripts/setup.d/*.sh; do
	[ -e "$step" ] || continue
	name=$(basename "$step" .sh)
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
echo "== setup: done"
