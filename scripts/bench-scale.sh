#!/usr/bin/env bash
# Run by `make bench` (scripts/bench.sh runs every scripts/bench-*.sh): the
# latency table on large generated vaults, the README's "At scale" rows.
# 100,000 memories take about ten minutes on two cores to build; 1,000,000
# take hours and many GB, so they run only with BENCH_MILLION=1. Both keep
# their generated vault in the user cache directory
# (~/.cache/compartment/bench, --vault-cache) and a rerun reuses it, so
# only the first run pays the build; BENCH_REBUILD=1 builds them again.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./bin/compartment
echo "== compartment bench --records 100000 (load: $(cut -d' ' -f1-3 /proc/loadavg))"
rebuild=()
[ "${BENCH_REBUILD:-}" = 1 ] && rebuild=(--rebuild)
"$bin" bench --records 100000 "${rebuild[@]}" || true
if [ "${BENCH_MILLION:-}" = 1 ]; then
	echo "== compartment bench --records 1000000 (load: $(cut -d' ' -f1-3 /proc/loadavg))"
	"$bin" bench --records 1000000 "${rebuild[@]}" || true
fi
