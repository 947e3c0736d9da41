#!/usr/bin/env bash
# `make bench`: benchmarks and long soaks, kept out of the default test run.
# Results are printed; nothing here is a pass/fail timing assertion.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./bin/compartment
# What only the benchmarks need (the test run does without).
bash scripts/deps/onnx-tools.sh || echo "bench: python3-onnx unavailable; the bge-small-shaped timing will skip"

echo "== go test -bench (vaultfmt, simd, ann, fts, rank, embed, internal)"
go test -run '^$' -bench . -benchtime 2s ./vaultfmt/ ./simd/ ./ann/ ./fts/ ./embed/ ./internal/... 2>&1 | grep -v '^ok\|^PASS' || true

if "$bin" bench --help >/dev/null 2>&1; then
	echo "== compartment bench --vectors"
	"$bin" bench --vectors || true
	if [ -f ../shared/data/longmemeval_s_dev.json.gz ]; then
		echo "== compartment bench --longmemeval (dev file), literal channel alone"
		"$bin" bench --longmemeval ../shared/data/longmemeval_s_dev.json.gz --literal || true
		echo "== compartment bench --longmemeval (dev file), hybrid with the bundled model"
		"$bin" bench --longmemeval ../shared/data/longmemeval_s_dev.json.gz || true
	fi
fi

echo "== bench/fts5/run.sh (literal channel against SQLite FTS5)"
bench/fts5/run.sh || true

for extra in scripts/bench-*.sh; do
	[ -e "$extra" ] || continue
	echo "== $extra"
	bash "$extra"
done
