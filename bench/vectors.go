package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/compartment/compartment/ann"
	"github.com/compartment/compartment/simd"
)

// VectorOptions configure [RunVectors]. The zero value runs the issue's
// benchmark: kernels at 384 dims, exact top-10 over 20k vectors, HNSW over
// 100k, 1,000 queries, fixed seeds.
type VectorOptions struct {
	Dim      int   // vector dimension; 0 means 384
	ExactN   int   // vectors in the exact run; 0 means 20,000
	HNSWN    []int // sizes of the HNSW runs; nil means {100000}
	Million  bool  // also run HNSW at 1,000,000 vectors (≈ 2 GB, minutes)
	Queries  int   // queries per run; 0 means 1,000
	K        int   // results per query; 0 means 10
	M        int   // HNSW M; 0 means 16
	EfBuild  int   // efConstruction; 0 means 200
	EfSearch []int // efSearch values swept; nil means {64, 96, 128, 192, 256}
	// Storages are the HNSW storages measured; nil means float32 (equal
	// terms with FAISS's IndexHNSWFlat) and int8 (the vault's default).
	Storages []ann.Storage
	// ExportDir, when set, receives the base and query vectors as .npy
	// files and the report as ours.json, for bench/faiss.
	ExportDir string
}

func (o VectorOptions) withDefaults() VectorOptions {
	if o.Dim == 0 {
		o.Dim = 384
	}
	if o.ExactN == 0 {
		o.ExactN = 20000
	}
	if o.HNSWN == nil {
		o.HNSWN = []int{100000}
	}
	if o.Million && !slices.Contains(o.HNSWN, 1000000) {
		o.HNSWN = append(o.HNSWN, 1000000)
	}
	if o.Queries == 0 {
		o.Queries = 1000
	}
	if o.K == 0 {
		o.K = 10
	}
	if o.M == 0 {
		o.M = ann.DefaultM
	}
	if o.EfBuild == 0 {
		o.EfBuild = ann.DefaultEfConstruction
	}
	if o.EfSearch == nil {
		o.EfSearch = []int{64, 96, 128, 192, 256}
	}
	if o.Storages == nil {
		o.Storages = []ann.Storage{ann.F32, ann.Int8}
	}
	return o
}

// Seeds of the synthetic data: base vectors and queries.
const (
	baseSeed  = 1
	querySeed = 2
)

// KernelReport is nanoseconds per dot product of two 384-dim vectors.
type KernelReport struct {
	DotI8        float64 `json:"dot_i8_384_ns"`
	DotI8Generic float64 `json:"dot_i8_384_generic_ns"`
	DotF32       float64 `json:"dot_f32_384_ns"`
	DotF32Gen    float64 `json:"dot_f32_384_generic_ns"`
}

// ExactReport is one exact-search run.
type ExactReport struct {
	N       int     `json:"n"`
	Dim     int     `json:"dim"`
	Storage string  `json:"storage"`
	Recall  float64 `json:"recall_at_10"` // against float32 exact search
	P50Ms   float64 `json:"p50_ms"`
	P95Ms   float64 `json:"p95_ms"`
}

// HNSWReport is one HNSW run at one efSearch.
type HNSWReport struct {
	N        int     `json:"n"`
	Dim      int     `json:"dim"`
	Storage  string  `json:"storage"`
	M        int     `json:"m"`
	EfBuild  int     `json:"ef_construction"`
	EfSearch int     `json:"ef_search"`
	Recall   float64 `json:"recall_at_10"` // against float32 exact search
	P50Ms    float64 `json:"p50_ms"`
	P95Ms    float64 `json:"p95_ms"`
	BuildS   float64 `json:"build_s"`
	// BuildCPUS is the process CPU time of the build (wall time on a
	// shared machine also counts other processes).
	BuildCPUS float64 `json:"build_cpu_s"`
}

// VectorSection holds the index runs. HNSW is the headline: float32
// storage at the largest size below a million, at the smallest efSearch
// whose recall@10 reaches 0.99 (or the best one measured); Sweep has
// every run.
type VectorSection struct {
	Exact       ExactReport  `json:"exact"`
	ExactF32    ExactReport  `json:"exact_f32"`
	HNSW        HNSWReport   `json:"hnsw"`
	HNSWInt8    HNSWReport   `json:"hnsw_int8"`
	HNSWMillion *HNSWReport  `json:"hnsw_1m,omitempty"`
	Sweep       []HNSWReport `json:"hnsw_sweep"`
}

// VectorReport is what `compartment bench --vectors --json` prints.
type VectorReport struct {
	Kernels KernelReport  `json:"kernels"`
	Vector  VectorSection `json:"vector"`
	CPU     string        `json:"cpu"`
	Queries int           `json:"queries"`
	K       int           `json:"k"`
}

// RunVectors runs the vector benchmarks single-threaded (one search at a
// time) and reports them; progress lines go to progress (may be nil).
func RunVectors(opts VectorOptions, progress io.Writer) (VectorReport, error) {
	opts = opts.withDefaults()
	if progress == nil {
		progress = io.Discard
	}
	rep := VectorReport{CPU: simd.Features(), Queries: opts.Queries, K: opts.K}
	fmt.Fprintln(progress, "kernels…")
	rep.Kernels = measureKernels(opts.Dim)

	largest := max(opts.ExactN, slices.Max(opts.HNSWN))
	fmt.Fprintf(progress, "generating %d base and %d query vectors (dim %d)…\n", largest, opts.Queries, opts.Dim)
	base := ClusteredVectors(baseSeed, largest, opts.Dim)
	queries := ClusteredVectors(querySeed, opts.Queries, opts.Dim)
	if opts.ExportDir != "" {
		if err := exportVectors(opts.ExportDir, base, queries); err != nil {
			return rep, err
		}
	}

	fmt.Fprintf(progress, "exact search over %d…\n", opts.ExactN)
	truth := groundTruth(base, opts.ExactN, queries, opts.K)
	rep.Vector.Exact = runExact(base, opts.ExactN, queries, opts.K, ann.Int8, truth)
	rep.Vector.ExactF32 = runExact(base, opts.ExactN, queries, opts.K, ann.F32, truth)

	for _, n := range opts.HNSWN {
		fmt.Fprintf(progress, "ground truth over %d…\n", n)
		truth := groundTruth(base, n, queries, opts.K)
		for _, st := range opts.Storages {
			runs := runHNSW(base, n, queries, truth, opts, st, progress)
			rep.Vector.Sweep = append(rep.Vector.Sweep, runs...)
		}
	}
	rep.Vector.pickHeadlines(opts)
	if opts.ExportDir != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(filepath.Join(opts.ExportDir, "ours.json"), b, 0o644); err != nil {
			return rep, fmt.Errorf("bench: write ours.json: %w", err)
		}
	}
	return rep, nil
}

func exportVectors(dir string, base, queries *Vectors) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bench: export: %w", err)
	}
	if err := base.WriteNPY(filepath.Join(dir, "base.npy")); err != nil {
		return err
	}
	return queries.WriteNPY(filepath.Join(dir, "queries.npy"))
}

// pickHeadlines chooses, per storage, the largest sub-million size and
// there the smallest efSearch reaching recall 0.99.
func (v *VectorSection) pickHeadlines(opts VectorOptions) {
	pick := func(st string, n int) (HNSWReport, bool) {
		var best HNSWReport
		found := false
		for _, r := range v.Sweep {
			if r.Storage != st || r.N != n {
				continue
			}
			if !found || (best.Recall < 0.99 && r.Recall > best.Recall) {
				best, found = r, true
			}
		}
		return best, found
	}
	n := 0
	for _, x := range opts.HNSWN {
		if x < 1000000 && x > n {
			n = x
		}
	}
	v.HNSW, _ = pick(ann.F32.String(), n)
	v.HNSWInt8, _ = pick(ann.Int8.String(), n)
	if r, ok := pick(ann.F32.String(), 1000000); ok {
		v.HNSWMillion = &r
	}
}

// groundTruth returns the true top-k of each query among the first n base
// vectors, by float32 exact search.
func groundTruth(base *Vectors, n int, queries *Vectors, k int) [][]uint64 {
	e := ann.NewExact(base.Dim, ann.Options{Storage: ann.F32})
	for i := range n {
		e.Add(uint64(i), base.Row(i))
	}
	out := make([][]uint64, queries.N)
	for i := range queries.N {
		for _, h := range e.Search(queries.Row(i), k) {
			out[i] = append(out[i], h.Key)
		}
	}
	return out
}

func runExact(base *Vectors, n int, queries *Vectors, k int, st ann.Storage, truth [][]uint64) ExactReport {
	e := ann.NewExact(base.Dim, ann.Options{Storage: st})
	for i := range n {
		e.Add(uint64(i), base.Row(i))
	}
	lat, recall := timeSearches(e, queries, k, truth)
	return ExactReport{N: n, Dim: base.Dim, Storage: st.String(), Recall: recall, P50Ms: lat.p(0.50), P95Ms: lat.p(0.95)}
}

func runHNSW(base *Vectors, n int, queries *Vectors, truth [][]uint64, opts VectorOptions, st ann.Storage, progress io.Writer) []HNSWReport {
	fmt.Fprintf(progress, "HNSW %s: building over %d (M=%d, efConstruction=%d)…\n", st, n, opts.M, opts.EfBuild)
	start, cpu := time.Now(), processCPU()
	var runs []HNSWReport
	h := ann.NewHNSW(base.Dim, ann.Options{Storage: st, M: opts.M, EfConstruction: opts.EfBuild})
	for i := range n {
		h.Add(uint64(i), base.Row(i))
		if (i+1)%(n/10) == 0 {
			fmt.Fprintf(progress, "  %d%% (%.0fs)\n", (i+1)*100/n, time.Since(start).Seconds())
		}
	}
	build := time.Since(start).Seconds()
	buildCPU := (processCPU() - cpu).Seconds()
	for _, ef := range opts.EfSearch {
		h.SetEfSearch(ef)
		lat, recall := timeSearches(h, queries, opts.K, truth)
		r := HNSWReport{N: n, Dim: base.Dim, Storage: st.String(), M: opts.M, EfBuild: opts.EfBuild, EfSearch: ef,
			Recall: recall, P50Ms: lat.p(0.50), P95Ms: lat.p(0.95), BuildS: build, BuildCPUS: buildCPU}
		fmt.Fprintf(progress, "  ef=%d recall@10 %.4f p50 %.3f ms p95 %.3f ms\n", ef, r.Recall, r.P50Ms, r.P95Ms)
		runs = append(runs, r)
	}
	return runs
}

type latencies []time.Duration

// p returns the q-quantile in milliseconds (nearest rank).
func (l latencies) p(q float64) float64 {
	s := slices.Clone(l)
	slices.Sort(s)
	i := min(len(s)-1, int(q*float64(len(s))))
	return float64(s[i].Nanoseconds()) / 1e6
}

// latencyPasses is how many times every query is timed; its latency is
// the fastest pass. The machine is shared, so one pass would time other
// processes' preemptions as much as the search; the same query does the
// same work every pass, so the minimum keeps what the search itself costs,
// its slow queries included. bench/faiss times FAISS the same way.
const latencyPasses = 3

// timeSearches warms up, times every query latencyPasses times, and
// returns each query's fastest latency and the mean recall against truth.
func timeSearches(idx ann.Index, queries *Vectors, k int, truth [][]uint64) (latencies, float64) {
	for i := range min(queries.N, 100) {
		idx.Search(queries.Row(i), k)
	}
	lat := make(latencies, queries.N)
	var recall float64
	for pass := range latencyPasses {
		for i := range queries.N {
			q := queries.Row(i)
			t := time.Now()
			hits := idx.Search(q, k)
			d := time.Since(t)
			if pass == 0 {
				lat[i] = d
				recall += recallOf(hits, truth[i])
			}
			lat[i] = min(lat[i], d)
		}
	}
	return lat, recall / float64(queries.N)
}

func recallOf(hits []ann.Hit, truth []uint64) float64 {
	if len(truth) == 0 {
		return 1
	}
	n := 0
	for _, h := range hits {
		if slices.Contains(truth, h.Key) {
			n++
		}
	}
	return float64(n) / float64(len(truth))
}

// WriteText prints the report as a table.
func (r VectorReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	k := r.Kernels
	fmt.Fprintf(tw, "cpu\t%s\n\n", r.CPU)
	fmt.Fprintf(tw, "kernel (384 dims)\tns/op\tgeneric ns/op\tspeed-up\n")
	fmt.Fprintf(tw, "dot int8\t%.1f\t%.1f\t%.1f×\n", k.DotI8, k.DotI8Generic, k.DotI8Generic/k.DotI8)
	fmt.Fprintf(tw, "dot float32\t%.1f\t%.1f\t%.1f×\n\n", k.DotF32, k.DotF32Gen, k.DotF32Gen/k.DotF32)
	fmt.Fprintf(tw, "index (top-%d, %d queries, one thread)\tn\tstorage\tef\trecall@%d\tp50 ms\tp95 ms\tbuild s\tbuild cpu s\n", r.K, r.Queries, r.K)
	for _, e := range []ExactReport{r.Vector.Exact, r.Vector.ExactF32} {
		fmt.Fprintf(tw, "exact\t%d\t%s\t-\t%.4f\t%.3f\t%.3f\t-\t-\n", e.N, e.Storage, e.Recall, e.P50Ms, e.P95Ms)
	}
	for _, h := range r.Vector.Sweep {
		fmt.Fprintf(tw, "hnsw M=%d efC=%d\t%d\t%s\t%d\t%.4f\t%.3f\t%.3f\t%.1f\t%.1f\n", h.M, h.EfBuild, h.N, h.Storage, h.EfSearch, h.Recall, h.P50Ms, h.P95Ms, h.BuildS, h.BuildCPUS)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("bench: write table: %w", err)
	}
	return nil
}

// String is the text table.
func (r VectorReport) String() string {
	var b strings.Builder
	r.WriteText(&b)
	return b.String()
}
