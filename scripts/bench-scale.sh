#!/usr/bin/env bash
# Run by `make bench` (scripts/bench.sh runs every scripts/bench-*.sh): the
# latency table on large generated vaults, the README's "At scale" rows.
# 100,000 memories take about ten minutes on two cores; 1,000,000 take
# hours and a few GB, so they run only with BENCH_MILLION=1.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./bin/compartment
echo "== compartment bench --records 100000 (load: $(cut -d' ' -f1-3 /proc/loadavg))"
"$bin" bench --records 100000 || true
if [ "${BENCH_MILLION:-}" = 1 ]; then
	echo "== compartment bench --records 1000000 (load: $(cut -d' ' -f1-3 /proc/loadavg))"
	"$bin" bench --records 1000000 || true
fi
