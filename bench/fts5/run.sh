#!/usr/bin/env bash
# Side-by-side literal search: compartment's literal channel against SQLite
# FTS5 (bm25 ranking) on the same records and the same 1,000 queries, from
# the LongMemEval file. Needs Debian's python3 with its sqlite3 module
# (SQLite with FTS5; scripts/deps/sqlite-fts5.sh installs it, and this script
# runs it first).
#
# Usage: bench/fts5/run.sh [OUTDIR] [extra flags for the Go side, e.g.
#        -data PATH -sizes 20000,100000 -queries 1000]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.cache/fts5-bench}
shift || true
py=/usr/bin/python3
bash scripts/deps/sqlite-fts5.sh
if ! "$py" -c "import sqlite3; sqlite3.connect(':memory:').execute('create virtual table t using fts5(x)')" 2>/dev/null; then
	echo "fts5: $py lacks sqlite3 with FTS5; install Debian's sqlite3 and python3" >&2
	exit 1
fi
mkdir -p "$out"
echo "== compartment literal channel (Go); corpora and queries in $out"
go run ./bench/fts5 -out "$out" "$@"
sizes=$(ls "$out"/ours_*.json | sed 's/.*ours_\([0-9]*\)\.json/\1/' | sort -n | tr '\n' ' ')
echo
echo "== SQLite FTS5 on the same records and queries"
"$py" bench/fts5/fts5_bench.py "$out" $sizes | column -t -s $'\t'
