#!/usr/bin/env bash
# Side-by-side vector benchmark: compartment's exact and HNSW indexes
# against FAISS's IndexFlatIP and IndexHNSWFlat on the same vectors, same
# M and ef, one thread each. Installs Debian's python3-faiss on first use
# (it is only for this comparison, not for the tests).
#
# Usage: [FAISS_JSON=prev/faiss.json] bench/faiss/run.sh [OUTDIR] [extra flags for the Go exporter,
#        e.g. -n 100000,1000000]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.cache/faiss-bench}
shift || true
if ! /usr/bin/python3 -c 'import faiss, numpy' 2>/dev/null; then
	echo "== installing python3-faiss and python3-numpy (apt)"
	if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
	$SUDO apt-get install -y python3-faiss python3-numpy >/dev/null ||
		{ $SUDO apt-get update >/dev/null && $SUDO apt-get install -y python3-faiss python3-numpy >/dev/null; }
fi
mkdir -p "$out"
echo "== compartment (Go), vectors exported to $out"
go run ./bench/faiss -out "$out" "$@" | tee "$out/ours.txt"
echo
echo "== FAISS on the same vectors"
# One thread for FAISS as for us; the OpenBLAS variables some machines set
# only matter to numpy's BLAS, which IndexFlatIP uses for batches.
OMP_NUM_THREADS=1 /usr/bin/python3 bench/faiss/faiss_bench.py "$out" ${FAISS_JSON:+--faiss-json "$FAISS_JSON"} | tee "$out/compare.tsv" | column -t -s $'\t'
