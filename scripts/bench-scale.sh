#!/usr/bin/env bash
# Run by `make bench` (scripts/bench.sh runs every scripts/bench-*.sh): the
# latency table on large generated vaults, the README's "At scale" rows.
# 100,000 lines take a minute or two on two cores to build; 1,000,000 take
# a quarter of an hour at a peak of about 5 GB (2026-12-03, loaded), so
# they run only with BENCH_MILLION=1. Both keep their generated vault in
# the user cache directory (~/.cache/compartment/bench), or in
# BENCH_VAULT_CACHE=DIR (--vault-cache), and a rerun reuses it, so only the
# first run pays the build; BENCH_REBUILD=1 builds them again. The build
# logs a line per tenth (rate, time left, RSS).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./bin/compartment
echo "== compartment bench --records 100000 (load: $(cut -d' ' -f1-3 /proc/loadavg))"
opts=()
[ "${BENCH_REBUILD:-}" = 1 ] && opts+=(--rebuild)
[ -n "${BENCH_VAULT_CACHE:-}" ] && opts+=(--vault-cache "$BENCH_VAULT_CACHE")
"$bin" bench --records 100000 "${opts[@]}" || true
if [ "${BENCH_MILLION:-}" = 1 ]; then
	echo "== compartment bench --records 1000000 (load: $(cut -d' ' -f1-3 /proc/loadavg))"
	"$bin" bench --records 1000000 "${opts[@]}" || true
fi
