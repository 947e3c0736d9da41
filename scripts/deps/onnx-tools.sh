#!/usr/bin/env bash
# Debian's python3-onnx and python3-numpy, for embed/testdata/onnx/gen.py: it
# regenerates the committed tiny BERT fixture and builds the random
# bge-small-shaped model the embedding benchmarks time. The tests themselves
# only read the committed fixture, so a machine without apt keeps working.
set -euo pipefail
if /usr/bin/python3 -c 'import onnx, numpy' 2>/dev/null; then
	echo "onnx tools: present"
	exit 0
fi
if ! command -v apt-get >/dev/null; then
	echo "onnx tools: no apt-get here; install python3-onnx and python3-numpy to regenerate embed fixtures"
	exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
pkgs=(python3-onnx python3-numpy)
export DEBIAN_FRONTEND=noninteractive
# A fresh machine may have no package lists yet.
$sudo apt-get install -y --no-install-recommends "${pkgs[@]}" ||
	{ $sudo apt-get update && $sudo apt-get install -y --no-install-recommends "${pkgs[@]}"; }
