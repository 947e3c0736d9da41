// Command faiss-export runs compartment's vector benchmark with the vectors
// exported (base.npy, queries.npy) and its report written as ours.json, so
// that faiss_bench.py can measure FAISS on the very same data. run.sh
// drives both; see the README beside this file.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/compartment/compartment/bench"
)

func main() {
	dir := flag.String("out", "", "directory for base.npy, queries.npy and ours.json")
	sizes := flag.String("n", "100000", "comma-separated HNSW sizes")
	efs := flag.String("ef", "64,96,128,192,256", "comma-separated efSearch values")
	queries := flag.Int("queries", 1000, "queries per run")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "faiss-export: -out is required")
		os.Exit(2)
	}
	opts := bench.VectorOptions{ExportDir: *dir, Queries: *queries, HNSWN: ints(*sizes), EfSearch: ints(*efs)}
	rep, err := bench.RunVectors(opts, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rep.WriteText(os.Stdout)
}

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			fmt.Fprintf(os.Stderr, "faiss-export: bad number %q\n", f)
			os.Exit(2)
		}
		out = append(out, n)
	}
	return out
}
