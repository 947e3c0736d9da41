#!/usr/bin/env bash
# Runs every step a fresh machine needs, in name order. Each step is
# idempotent: it checks before it installs, so a second run is quick.
set -euo pipefail
cd "$(dirname "$0")/.."
for step in scripts/setup.d/*.sh; do
	[ -e "$step" ] || continue
	echo "== setup: $(basename "$step" .sh)"
	bash "$step"
done
echo "== setup: done"
