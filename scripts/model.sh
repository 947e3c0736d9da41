#!/usr/bin/env bash
# `make model`: rebuilds the bundled static embedding model from scratch and
# prints its SHA-256. The corpus comes from the pinned Debian and npm
# packages in embed/train/corpus.lock (scripts/model-corpus.sh); the build is
# deterministic, so the result must equal the committed embed/model file.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
cache=$(scripts/model-corpus.sh | tail -n1)
go run ./cmd/trainmodel -cache "$cache" -out embed/model/static-v1.bin
echo "model: v1 rebuilt in $(( $(date +%s) - start ))s; SHA-256 $(cat embed/model/static-v1.sha256)"
# compartment-static-v2: v1's table trained contrastively on mined pairs.
go run ./cmd/trainmodel -cache "$cache" -v2-from embed/model/static-v1.bin -out embed/model/static-v2.bin
echo "model: v2 rebuilt in $(( $(date +%s) - start ))s in all; SHA-256 $(cat embed/model/static-v2.sha256)"
if git diff --quiet -- embed/model 2>/dev/null; then
	echo "model: identical to the committed artifact"
else
	echo "model: differs from the committed artifact (git diff embed/model)"
fi
