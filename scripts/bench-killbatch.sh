#!/usr/bin/env bash
# Long kill -9 soak of batches (issue 13), called by scripts/bench.sh:
# `compartment import` of a 256-line batch is SIGKILLed COMPARTMENT_KILL_ROUNDS
# times (default 60), half of them the instant the vault file starts to grow.
# Prints how many kills tore a batch on disk; fails if any batch is partly
# in the vault, an acknowledged import is missing, or verify fails.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${COMPARTMENT_KILL_ROUNDS:-60}"
echo "kill-9 batch soak: $rounds rounds"
COMPARTMENT_KILL_ROUNDS="$rounds" GOPROXY=off \
	scripts/offline.sh go test -count=1 -run '^TestKillNineBatchesStayWhole$' -v -timeout 30m ./cmd/compartment/ 2>&1 |
	grep -E '^(--- |FAIL|ok|PASS)|killbatch_test.go' || { echo "kill-9 batch soak: FAILED"; exit 1; }
