#!/usr/bin/python3
"""Measures FAISS on the vectors compartment's harness exported, one
thread, and prints FAISS's numbers beside ours with the ratios.

Usage: faiss_bench.py DIR   (DIR holds base.npy, queries.npy, ours.json)

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
    t = time.perf_counter()
    index.search(xq, k)
    batch_ms = (time.perf_counter() - t) / len(xq) * 1e3
    return lat, np.array(found), batch_ms


def recall(found, truth):
    k = truth.shape[1]
    return float(np.mean([len(set(f) & set(t)) / k for f, t in zip(found, truth)]))


def main():
    d = sys.argv[1]
    faiss.omp_set_num_threads(1)
    ours = json.load(open(os.path.join(d, "ours.json")))
    xb = np.load(os.path.join(d, "base.npy"))
    xq = np.load(os.path.join(d, "queries.npy"))
    k = ours["k"]
    dim = xb.shape[1]
    rows = []

    ex = ours["vector"]["exact_f32"]
    flat = faiss.IndexFlatIP(dim)
    flat.add(xb[: ex["n"]])
    lat, _, batch = time_queries(flat, xq, k)
    rows.append(("exact (IndexFlatIP vs ours f32)", ex["n"], "-", ex["recall_at_10"], 1.0,
                 ex["p50_ms"], percentile_ms(lat, .5), ex["p95_ms"], percentile_ms(lat, .95), batch, None, None))
    ex8 = ours["vector"]["exact"]
    rows.append(("exact (IndexFlatIP vs ours int8)", ex8["n"], "-", ex8["recall_at_10"], 1.0,
                 ex8["p50_ms"], percentile_ms(lat, .5), ex8["p95_ms"], percentile_ms(lat, .95), batch, None, None))

    result = {"faiss_version": faiss.__version__, "runs": []}
    sizes = sorted({r["n"] for r in ours["vector"]["hnsw_sweep"]})
    for n in sizes:
        truth_index = faiss.IndexFlatIP(dim)
        truth_index.add(xb[:n])
        _, truth = truth_index.search(xq, k)
        ourruns = [r for r in ours["vector"]["hnsw_sweep"] if r["n"] == n]
        m, efc = ourruns[0]["m"], ourruns[0]["ef_construction"]
        h = faiss.IndexHNSWFlat(dim, m, faiss.METRIC_INNER_PRODUCT)
        h.hnsw.efConstruction = efc
        t, c = time.perf_counter(), time.process_time()
        h.add(xb[:n])
        build, build_cpu = time.perf_counter() - t, time.process_time() - c
        print(f"FAISS HNSW n={n} built in {build:.1f}s ({build_cpu:.1f}s CPU)", file=sys.stderr)
        for ef in sorted({r["ef_search"] for r in ourruns}):
            h.hnsw.efSearch = ef
            lat, found, batch = time_queries(h, xq, k)
            fr = recall(found, truth)
            result["runs"].append({"n": n, "ef_search": ef, "recall_at_10": fr, "p50_ms": percentile_ms(lat, .5),
                                   "p95_ms": percentile_ms(lat, .95), "batch_ms": batch, "build_s": build, "build_cpu_s": build_cpu})
            for r in ourruns:
                if r["ef_search"] == ef:
                    rows.append((f"hnsw {r['storage']} (IndexHNSWFlat)", n, ef, r["recall_at_10"], fr,
                                 r["p50_ms"], percentile_ms(lat, .5), r["p95_ms"], percentile_ms(lat, .95), batch,
                                 (r["build_s"], r.get("build_cpu_s", 0)), (build, build_cpu)))

    print(f"FAISS {faiss.__version__}, one thread; ours: {ours['cpu']}")
    print("ratio = FAISS time / ours: above 1 means ours is faster")
    hdr = ("index", "n", "ef", "recall ours", "recall faiss", "p50 ours", "p50 faiss", "p50 ratio",
           "p95 ours", "p95 faiss", "p95 ratio", "faiss batch/q", "batch ratio", "build ours", "build faiss", "build ratio", "build cpu ours", "build cpu faiss", "cpu ratio")
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
    json.dump(result, open(os.path.join(d, "faiss.json"), "w"), indent=2)


if __name__ == "__main__":
    main()
