#!/usr/bin/env python3
"""SQLite FTS5 side of the literal-search comparison (see run.sh).

For each corpus size: loads corpus_<n>.jsonl into an in-memory FTS5 table
(unicode61 tokenizer), runs every query of queries_<n>.jsonl the way our
literal channel does (AND of the query's words ranked by bm25, top 200; when
AND finds fewer than 200, then OR over the informative words, top 200), one
warm-up pass and
three timed passes keeping each query's fastest time, and prints a table
against ours_<n>.json.
"""
import json
import sqlite3
import sys
import time


def pct(values, p):
    s = sorted(values)
    i = max(int(p * len(s) + 0.999999) - 1, 0)
    return s[i]


def run_size(out, n, passes=3):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE r USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')")
    with open(f"{out}/corpus_{n}.jsonl", encoding="utf-8") as f:
        rows = [(json.loads(line),) for line in f]
    start = time.perf_counter()
    db.executemany("INSERT INTO r(body) VALUES (?)", rows)
    db.execute("INSERT INTO r(r) VALUES ('optimize')")
    db.commit()
    build = time.perf_counter() - start
    with open(f"{out}/queries_{n}.jsonl", encoding="utf-8") as f:
        queries = [json.loads(line) for line in f]
    sql = "SELECT rowid FROM r WHERE r MATCH ? ORDER BY rank LIMIT 200"

    def one(q):
        found = db.execute(sql, (q["and"],)).fetchall() if q["and"] else []
        if len(found) < 200 and q["or"]:
            found += db.execute(sql, (q["or"],)).fetchall()
        return found

    for q in queries:  # warm-up
        one(q)
    best = [float("inf")] * len(queries)
    for _ in range(passes):
        for i, q in enumerate(queries):
            t = time.perf_counter_ns()
            one(q)
            best[i] = min(best[i], (time.perf_counter_ns() - t) / 1e6)
    # The cost of a trivial statement from Python, to read the numbers by.
    overhead = []
    for _ in range(2000):
        t = time.perf_counter_ns()
        db.execute("SELECT 1").fetchall()
        overhead.append((time.perf_counter_ns() - t) / 1e6)
    return {"records": n, "build_s": build, "p50": pct(best, 0.5), "p95": pct(best, 0.95),
            "python_overhead_ms": pct(overhead, 0.5), "sqlite": sqlite3.sqlite_version}


def main():
    out, sizes = sys.argv[1], sys.argv[2:]
    print("records\tours p50 ms\tours p95 ms\tfts5 p50 ms\tfts5 p95 ms\tp50 ratio fts5/ours\tp95 ratio\tours engine p50 ms\tfts5 build s")
    for n in sizes:
        f = run_size(out, int(n))
        with open(f"{out}/ours_{n}.json", encoding="utf-8") as fh:
            ours = json.load(fh)
        with open(f"{out}/fts5_{n}.json", "w", encoding="utf-8") as fh:
            json.dump(f, fh, indent=2)
        print(f"{n}\t{ours['channel_p50_ms']:.3f}\t{ours['channel_p95_ms']:.3f}\t{f['p50']:.3f}\t{f['p95']:.3f}\t"
              f"{f['p50'] / ours['channel_p50_ms']:.2f}x\t{f['p95'] / ours['channel_p95_ms']:.2f}x\t"
              f"{ours['engine_p50_ms']:.3f}\t{f['build_s']:.1f}")
    print(f"(SQLite {f['sqlite']}; a trivial statement costs {f['python_overhead_ms']:.4f} ms from Python, "
          "included in the FTS5 times)", file=sys.stderr)


if __name__ == "__main__":
    main()
