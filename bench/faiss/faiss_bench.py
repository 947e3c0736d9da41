#!/usr/bin/python3
"""Measures FAISS on the vectors compartment's harness exported, one
thread, and prints FAISS's numbers beside ours with the ratios.

Usage: faiss_bench.py DIR [--faiss-json FILE]
  DIR holds base.npy, queries.npy and ours.json; FAISS's numbers are
  written to DIR/faiss.json, or read from FILE instead of measured.

Latency is timed per query, one query per call, fastest of three passes
per query, as compartment's is. A
Python call costs FAISS a few microseconds per query, so the batch rate
(all queries in one call, still one thread) is printed too as FAISS's best
case.
"""
import json
import os
import sys
import time

import faiss
import numpy as np


def percentile_ms(samples, q):
    s = sorted(samples)
    return s[min(len(s) - 1, int(q * len(s)))] * 1e3


def time_queries(index, xq, k):
    for q in xq[:100]:  # warm-up, as the Go harness does
        index.search(q[None, :], k)
    # Each query's fastest of three passes, as the Go harness times ours.
    lat, found = [float("inf")] * len(xq), []
    for p in range(3):
        for i, q in enumerate(xq):
            t = time.perf_counter()
            _, ids = index.search(q[None, :], k)
            lat[i] = min(lat[i], time.perf_counter() - t)
            if p == 0:
                found.append(ids[0])
    batch_ms = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        index.search(xq, k)
        batch_ms = min(batch_ms, (time.perf_counter() - t) / len(xq) * 1e3)
    return lat, np.array(found), batch_ms


def recall(found, truth):
    k = truth.shape[1]
    return float(np.mean([len(set(f) & set(t)) / k for f, t in zip(found, truth)]))


def measure(d, xb, xq, ours):
    """Runs FAISS on the exported vectors: IndexFlatIP over the exact run's
    vectors, IndexHNSWFlat per HNSW size and efSearch of ours."""
    k, dim = ours["k"], xb.shape[1]
    res = {"faiss_version": faiss.__version__, "flat": {}, "runs": []}
    ex = ours["vector"]["exact_f32"]
    flat = faiss.IndexFlatIP(dim)
    flat.add(xb[: ex["n"]])
    lat, _, batch = time_queries(flat, xq, k)
    res["flat"] = {"n": ex["n"], "p50_ms": percentile_ms(lat, .5), "p95_ms": percentile_ms(lat, .95), "batch_ms": batch}
    sweep = ours["vector"]["hnsw_sweep"]
    for n in sorted({r["n"] for r in sweep}):
        truth_index = faiss.IndexFlatIP(dim)
        truth_index.add(xb[:n])
        _, truth = truth_index.search(xq, k)
        first = next(r for r in sweep if r["n"] == n)
        h = faiss.IndexHNSWFlat(dim, first["m"], faiss.METRIC_INNER_PRODUCT)
        h.hnsw.efConstruction = first["ef_construction"]
        t, c = time.perf_counter(), time.process_time()
        h.add(xb[:n])
        build, build_cpu = time.perf_counter() - t, time.process_time() - c
        print(f"FAISS HNSW n={n} built in {build:.1f}s ({build_cpu:.1f}s CPU)", file=sys.stderr)
        for ef in sorted({r["ef_search"] for r in sweep if r["n"] == n}):
            h.hnsw.efSearch = ef
            lat, found, batch = time_queries(h, xq, k)
            res["runs"].append({"n": n, "ef_search": ef, "recall_at_10": recall(found, truth),
                                "p50_ms": percentile_ms(lat, .5), "p95_ms": percentile_ms(lat, .95),
                                "batch_ms": batch, "build_s": build, "build_cpu_s": build_cpu})
    return res


def compare(ours, fr):
    """Prints ours beside FAISS with ratios (FAISS ÷ ours)."""
    fl = fr["flat"]
    rows = []
    for key in ("exact_f32", "exact"):
        ex = ours["vector"][key]
        rows.append((f"exact {ex['storage']} vs IndexFlatIP", ex["n"], "-", ex["recall_at_10"], 1.0,
                     ex["p50_ms"], fl["p50_ms"], ex["p95_ms"], fl["p95_ms"], fl["batch_ms"], None, None))
    for r in ours["vector"]["hnsw_sweep"]:
        f = next((x for x in fr["runs"] if x["n"] == r["n"] and x["ef_search"] == r["ef_search"]), None)
        if f is None:
            continue
        rows.append((f"hnsw {r['storage']} vs IndexHNSWFlat", r["n"], r["ef_search"], r["recall_at_10"], f["recall_at_10"],
                     r["p50_ms"], f["p50_ms"], r["p95_ms"], f["p95_ms"], f["batch_ms"],
                     (r["build_s"], r.get("build_cpu_s", 0)), (f["build_s"], f.get("build_cpu_s", 0))))
    print(f"FAISS {fr['faiss_version']}, one thread; ours: {ours['cpu']}", file=sys.stderr)
    print("ratio = FAISS ÷ ours: above 1 means ours is faster", file=sys.stderr)
    hdr = ("index", "n", "ef", "recall ours", "recall faiss", "p50 ours", "p50 faiss", "p50 ratio",
           "p95 ours", "p95 faiss", "p95 ratio", "faiss batch/q", "batch ratio", "build ours", "build faiss", "build ratio",
           "build cpu ours", "build cpu faiss", "cpu ratio")
    print("\t".join(hdr))
    for (name, n, ef, rec_o, rec_f, p50o, p50f, p95o, p95f, batch, bo, bf) in rows:
        cells = [name, str(n), str(ef), f"{rec_o:.4f}", f"{rec_f:.4f}", f"{p50o:.3f}", f"{p50f:.3f}", f"{p50f / p50o:.2f}",
                 f"{p95o:.3f}", f"{p95f:.3f}", f"{p95f / p95o:.2f}", f"{batch:.3f}", f"{batch / p50o:.2f}"]
        if bo is None:
            cells += ["-"] * 6
        else:
            cells += [f"{bo[0]:.1f}", f"{bf[0]:.1f}", f"{bf[0] / bo[0]:.2f}"]
            cells += [f"{bo[1]:.1f}", f"{bf[1]:.1f}", f"{bf[1] / bo[1]:.2f}" if bo[1] else "-"]
        print("\t".join(cells))


def main():
    d = sys.argv[1]
    ours = json.load(open(os.path.join(d, "ours.json")))
    if len(sys.argv) > 3 and sys.argv[2] == "--faiss-json":
        # Compare a new run of ours with FAISS numbers measured before on
        # the same vectors (the exporter's output is deterministic).
        fr = json.load(open(sys.argv[3]))
    else:
        faiss.omp_set_num_threads(1)
        xb = np.load(os.path.join(d, "base.npy"))
        xq = np.load(os.path.join(d, "queries.npy"))
        fr = measure(d, xb, xq, ours)
        json.dump(fr, open(os.path.join(d, "faiss.json"), "w"), indent=2)
    compare(ours, fr)


if __name__ == "__main__":
    main()
