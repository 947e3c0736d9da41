#!/usr/bin/env bash
# Long soak of the multi-process path (issue 8), called by scripts/bench.sh:
# 3 MCP servers and 2 CLI writers store into one namespace of one vault
# through one unlock session for COMPARTMENT_SOAK_SECONDS (default 120),
# once undisturbed and once with a server and a CLI store SIGKILLed mid-run
# (one after the other, so each has the machine to itself).
# Prints writes/s, acknowledged vs present, and visibility checks; fails if
# any acknowledged write is missing or doubled, or verify fails.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${COMPARTMENT_SOAK_SECONDS:-120}"
echo "soak: ${secs}s per run, 3 MCP servers + 2 CLI writers"
COMPARTMENT_LONG=1 COMPARTMENT_SOAK_SECONDS="$secs" GOPROXY=off \
	scripts/offline.sh go test -count=1 -parallel 1 -run '^TestSoak(Kill)?$' -v -timeout $((secs * 3 + 600))s ./internal/session/ 2>&1 |
	grep -E '^(--- |FAIL|ok|PASS)|soak_test.go' || { echo "soak: FAILED"; exit 1; }
