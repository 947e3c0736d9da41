#!/usr/bin/env bash
# `make bench`: benchmarks and long soaks, kept out of the default test run.
# Results are printed; nothing here is a pass/fail timing assertion.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./bin/compartment

echo "== go test -bench (vaultfmt, simd, ann, fts, rank, embed, internal)"
go test -run '^$' -bench . -benchtime 2s ./vaultfmt/ ./simd/ ./ann/ ./fts/ ./embed/ ./internal/... 2>&1 | grep -v '^ok\|^PASS' || true

if "$bin" bench --help >/dev/null 2>&1; then
	echo "== compartment bench --vectors"
	"$bin" bench --vectors || true
	if [ -f ../shared/data/longmemeval_s_dev.json.gz ]; then
		echo "== compartment bench --longmemeval (dev file)"
		"$bin" bench --longmemeval ../shared/data/longmemeval_s_dev.json.gz || true
	fi
fi

for extra in scripts/bench-*.sh; do
	[ -e "$extra" ] || continue
	echo "== $extra"
	bash "$extra"
done
