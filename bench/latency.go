package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/compartment/compartment/ann"
	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/simd"
	"github.com/compartment/compartment/vaultfmt"
)

// LatencyOptions configure [RunLatency]: the spec's latency table.
type LatencyOptions struct {
	Records  int    // memories in the vault; 0 means 20,000
	Searches int    // timed hybrid searches; 0 means 300
	Stores   int    // timed stores; 0 means 50
	VectorN  int    // vectors in the exact and HNSW rows; 0 means 20,000
	Exe      string // the compartment binary, for the parts that run as processes; "" skips them
	Model    string // embedding model name ("" = the default)
	// Encoder embeds in this process (vault build, in-process search and
	// store); nil opens Model.
	Encoder embed.Encoder
	// Progress, when set, hears how far a long step is (a progress bar).
	Progress func(label string, done, total int)
	// Log receives one line per step; nil discards.
	Log io.Writer
	// SourceDir is the source tree whose tests are counted; "" looks for it
	// around the working directory and the binary.
	SourceDir string
	// CacheDir, when set, keeps the generated vault there and reuses it
	// on the next run with the same records and model (a million records
	// take hours to build); the run measures a copy, so the kept vault
	// stays as built. "" builds a throw-away vault.
	CacheDir string
	// Rebuild builds the kept vault again even if one is there.
	Rebuild bool
}

func (o LatencyOptions) withDefaults() LatencyOptions {
	if o.Records <= 0 {
		o.Records = 20000
	}
	if o.Searches <= 0 {
		o.Searches = 300
	}
	if o.Stores <= 0 {
		o.Stores = 50
	}
	if o.VectorN <= 0 {
		o.VectorN = 20000
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Progress == nil {
		o.Progress = func(string, int, int) {}
	}
	return o
}

// LatencyReport is the table, measured on this machine.
type LatencyReport struct {
	Date    string `json:"date"`
	CPU     string `json:"cpu"`
	Cores   int    `json:"cores"`
	Records int    `json:"records"` // generated lines imported
	// Memories is what the vault holds after them: every generated line
	// is a distinct memory (generation 2; generation 1 repeated claims,
	// 96,211 memories of 100,000 lines and 766,811 of 1,000,000).
	Memories int    `json:"memories"`
	Model    string `json:"model"`

	InitMs        float64 `json:"init_ms"`         // `compartment init` as a process
	OpenOfflineMs float64 `json:"open_offline_ms"` // `--assert-offline status` on the new vault
	BuildVaultS   float64 `json:"build_vault_s"`   // importing Records memories (or copying the kept vault)
	VaultReused   bool    `json:"vault_reused"`    // the vault kept in CacheDir was reused, not built
	VaultCache    string  `json:"vault_cache,omitempty"`
	BuildPeakMB   float64 `json:"build_peak_rss_mb,omitempty"` // this process's peak RSS after the build
	OpenMs        float64 `json:"open_ms"`                     // opening the Records vault, unlock excluded

	Exact ExactReport `json:"exact"`
	HNSW  HNSWReport  `json:"hnsw"`

	SearchP50Ms    float64 `json:"search_p50_ms"` // in this process
	SearchP95Ms    float64 `json:"search_p95_ms"`
	MCPSearchP50Ms float64 `json:"mcp_search_p50_ms"` // a tools/call through `compartment serve`
	MCPSearchP95Ms float64 `json:"mcp_search_p95_ms"`
	ServerRSSMB    float64 `json:"server_rss_mb"`
	ServerPeakMB   float64 `json:"server_peak_rss_mb"`

	DaemonModel        string  `json:"daemon_model"`
	DaemonRSSLoadedMB  float64 `json:"daemon_rss_loaded_mb"`
	DaemonRSSBatchesMB float64 `json:"daemon_rss_after_batches_mb"`
	DaemonBatchWindows int     `json:"daemon_batch_windows"`
	// SearchAllocKB is what one in-process search allocates (the garbage
	// the collector has to follow), averaged over the timed searches.
	SearchAllocKB float64 `json:"search_alloc_kb"`
	// FirstStoreMs is the first store after the open, which pays for
	// any index growth the open left to it; StoreP50Ms includes it.
	FirstStoreMs float64  `json:"first_store_ms"`
	StoreP50Ms   float64  `json:"store_p50_ms"`
	StoreP95Ms   float64  `json:"store_p95_ms"`
	BinaryBytes  int64    `json:"binary_bytes"`
	Tests        int      `json:"tests"`
	FuzzTargets  int      `json:"fuzz_targets"`
	Benchmarks   int      `json:"benchmarks"`
	Skipped      []string `json:"skipped,omitempty"`
	TotalS       float64  `json:"total_s"`
}

// The original tool's published figures, for the side-by-side column;
// where each came from is printed under the table (originSources). An
// empty string: it published none.
var specFigures = map[string]string{
	"search": "11.6 / 14.7 ms",
	"daemon": "≈ 70 MB",
	"tests":  "667",
}

// originColumn heads the comparison column, and originSources says under
// the table where its figures come from: the original (Python)
// compartment's own README and test suite, as the spec notes quote them.
const (
	originColumn  = "original tool (published)"
	originSources = "original tool: figures the original Python compartment published, not measured here: " +
		"search from its README (\"answers in about 12 ms\"; 11.6 / 14.7 ms median / p95 at 20,000 memories), " +
		"the embedding process from its README (\"about 70 MB\"), tests from its suite (667 test functions)"
)

// RunLatency builds a vault of generated one-claim memories and measures
// the table. It takes a few minutes at 20,000 memories.
func RunLatency(opts LatencyOptions) (LatencyReport, error) {
	opts = opts.withDefaults()
	start := time.Now()
	rep := LatencyReport{Date: time.Now().UTC().Format("2006-01-02"), CPU: simd.Features(), Cores: runtime.NumCPU(), Records: opts.Records}
	dir, err := os.MkdirTemp("", "compartment-bench-")
	if err != nil {
		return rep, fmt.Errorf("bench: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	enc := opts.Encoder
	if enc == nil {
		if enc, err = embed.Open(embed.LoadOptions{Name: opts.Model}); err != nil {
			return rep, fmt.Errorf("bench: load model: %w", err)
		}
		defer enc.Close()
	}
	rep.Model = enc.Info().Name
	proc := benchProcs{exe: opts.Exe, dir: dir, log: opts.Log}

	if opts.Exe != "" {
		fmt.Fprintln(opts.Log, "fresh install: init and open offline…")
		if rep.InitMs, rep.OpenOfflineMs, err = proc.freshInstall(); err != nil {
			return rep, err
		}
	} else {
		rep.Skipped = append(rep.Skipped, "fresh install", "MCP server", "daemon", "binary size")
	}

	fmt.Fprintf(opts.Log, "vector search over %d vectors…\n", opts.VectorN)
	vr, err := RunVectors(VectorOptions{ExactN: opts.VectorN, HNSWN: []int{opts.VectorN}, Queries: 200,
		EfSearch: []int{64}, Storages: []ann.Storage{ann.Int8}}, nil)
	if err != nil {
		return rep, err
	}
	rep.Exact, rep.HNSW = vr.Vector.Exact, vr.Vector.Sweep[0]

	path := filepath.Join(dir, "bench.vault")
	t := time.Now()
	if rep.VaultReused, rep.VaultCache, err = prepareVault(path, enc, opts); err != nil {
		return rep, err
	}
	rep.BuildVaultS = time.Since(t).Seconds()
	_, rep.BuildPeakMB = rssOf(os.Getpid())
	queries := pickQueries(opts.Records, opts.Searches)

	fmt.Fprintln(opts.Log, "hybrid search and store in this process…")
	if err := measureInProcess(path, enc, queries, opts.Stores, &rep); err != nil {
		return rep, err
	}
	if opts.Exe != "" {
		fmt.Fprintln(opts.Log, "hybrid search through `compartment serve`…")
		if err := proc.measureServer(path, queries, &rep); err != nil {
			return rep, err
		}
		fmt.Fprintln(opts.Log, "embedding daemon…")
		if err := proc.measureDaemon(opts.Model, &rep); err != nil {
			return rep, err
		}
		if st, err := os.Stat(opts.Exe); err == nil {
			rep.BinaryBytes = st.Size()
		}
	}
	src := opts.SourceDir
	if src == "" {
		src = findSourceDir(opts.Exe)
	}
	if src != "" {
		rep.Tests, rep.FuzzTargets, rep.Benchmarks = countTests(src)
	} else {
		rep.Skipped = append(rep.Skipped, "tests (no source tree found)")
	}
	rep.TotalS = time.Since(start).Seconds()
	return rep, nil
}

// benchPass is the passphrase of the throw-away benchmark vaults.
const benchPass = "bench passphrase, not a secret"

// prepareVault puts the vault of opts.Records generated claims at path:
// built there, or (with a CacheDir) copied from the one kept there,
// built first when there is none. It reports whether a kept vault was
// reused, and its path.
func prepareVault(path string, enc embed.Encoder, opts LatencyOptions) (bool, string, error) {
	if opts.CacheDir == "" {
		return false, "", buildVault(path, enc, opts.Model, opts.Records, opts.Progress, opts.Log)
	}
	kept := filepath.Join(opts.CacheDir, keptVaultName(opts.Records, enc.Info().Name))
	done := kept + ".done"
	reused := true
	if _, err := os.Stat(done); err != nil || opts.Rebuild {
		reused = false
		if opts.Rebuild {
			for _, f := range []string{done, kept, kept + ".config.json", kept + ".lock"} {
				os.Remove(f)
			}
		}
		if err := os.MkdirAll(opts.CacheDir, 0o700); err != nil {
			return false, kept, fmt.Errorf("bench: vault cache: %w", err)
		}
		fmt.Fprintf(opts.Log, "building the kept vault %s (a rerun reuses it)…\n", kept)
		if err := buildVault(kept, enc, opts.Model, opts.Records, opts.Progress, opts.Log); err != nil {
			return false, kept, err
		}
		if err := os.WriteFile(done, []byte(fmt.Sprintf("%d records, model %s, built %s\n", opts.Records, enc.Info().Name, time.Now().UTC().Format(time.RFC3339))), 0o600); err != nil {
			return false, kept, fmt.Errorf("bench: vault cache: %w", err)
		}
	} else {
		fmt.Fprintf(opts.Log, "reusing the kept vault %s (--rebuild builds it again)…\n", kept)
	}
	for _, suffix := range []string{"", ".config.json"} {
		if err := copyFile(kept+suffix, path+suffix); err != nil && !(suffix != "" && errors.Is(err, fs.ErrNotExist)) {
			return reused, kept, fmt.Errorf("bench: copy the kept vault: %w", err)
		}
	}
	return reused, kept, nil
}

// keptVaultGeneration changes when the generated claims or the way the
// vault is built change, so an older kept vault is not reused. 2: every
// line a distinct memory.
const keptVaultGeneration = 2

// keptVaultName names the kept vault of n records embedded by model.
func keptVaultName(n int, model string) string {
	clean := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, model)
	return fmt.Sprintf("claims-%d-%s-g%d.vault", n, clean, keptVaultGeneration)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// buildVault creates a vault at path (or, when one is there, opens it: a
// build stopped half way resumes, the import skipping the claims already
// stored) and imports n generated claims in one streaming import, so the
// claims are never all held and the progress bar counts lines as they
// are stored. log hears a line at each tenth of the build (the bar is
// drawn only on a terminal, and a million memories take many minutes).
func buildVault(path string, enc embed.Encoder, model string, n int, progress func(string, int, int), log io.Writer) error {
	unlock := vaultfmt.Unlock{Passphrase: []byte(benchPass)}
	var v *vault.Vault
	var err error
	if _, statErr := os.Stat(path); statErr == nil {
		v, err = vault.Open(path, vault.Options{Unlock: unlock, Encoder: enc})
	} else {
		v, err = vault.Create(path, vault.Options{Unlock: unlock, Encoder: enc})
	}
	if err != nil {
		return fmt.Errorf("bench: create vault: %w", err)
	}
	defer v.Close()
	if model != "" {
		// The server the table starts must load the same model.
		v.Config().Settings.Model = model
		if err := v.Config().Save(path); err != nil {
			return fmt.Errorf("bench: vault settings: %w", err)
		}
	}
	progress("building vault", 0, n)
	lines := &claimLines{claims: NewClaimStream(1), n: n}
	tenths := buildLog{w: log, n: n, start: time.Now()}
	if _, err := v.Import(lines, "bench generator", func(done int) {
		progress("building vault", done, n)
		tenths.at(done)
	}); err != nil {
		return fmt.Errorf("bench: import: %w", err)
	}
	progress("building vault", n, n)
	// The import compacts at its end (its checkpoint); a second, locked
	// compaction of the vault it left rewrote 1.15 GB for two minutes at
	// 1,000,000 lines and took the build's peak RSS from 4.8 to 8.1 GB.
	// Only a journal the import left behind is folded in.
	if v.File().JournalFrames() == 0 {
		return nil
	}
	return v.Flush()
}

// buildLog writes a line to w as a build of n lines passes each tenth:
// the count, the rate and time left, and this process's resident set.
type buildLog struct {
	w     io.Writer
	n     int
	start time.Time
	next  int // the tenth the next line is for
}

func (b *buildLog) at(done int) {
	if b.w == nil || b.n <= 0 || done*10 < (b.next+1)*b.n {
		return
	}
	b.next = done * 10 / b.n
	rss, peak := rssOf(os.Getpid())
	fmt.Fprintf(b.w, "  %d/%d lines (%d%%)%s; %.0f s, RSS %.0f MB (peak %.0f)\n", done, b.n, done*100/b.n,
		render.RateETA(done, b.n, time.Since(b.start)), time.Since(b.start).Seconds(), rss, peak)
}

// claimLines reads as the JSONL import of n generated claims, made as
// they are read.
type claimLines struct {
	claims *ClaimStream
	i, n   int
	buf    []byte
}

func (c *claimLines) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.i == c.n {
			return 0, io.EOF
		}
		line, err := json.Marshal(struct {
			Claim
			Source string `json:"source"`
		}{c.claims.Next(), "bench generator"})
		if err != nil {
			return 0, err
		}
		c.buf = append(line, '\n')
		c.i++
	}
	k := copy(p, c.buf)
	c.buf = c.buf[k:]
	return k, nil
}

// pickQueries draws n questions of the first records generated claims,
// the same ones every run, streaming the claims rather than holding them.
func pickQueries(records, n int) []string {
	r := rand.New(rand.NewPCG(5, 6))
	want := map[int][]int{} // claim → the query slots that ask its question
	last := 0
	for k := range n {
		i := r.IntN(records)
		want[i] = append(want[i], k)
		last = max(last, i)
	}
	out := make([]string, n)
	st := NewClaimStream(1)
	for i := 0; i <= last && n > 0; i++ {
		c := st.Next()
		for _, k := range want[i] {
			out[k] = c.Query
		}
	}
	return out
}

// measureInProcess times hybrid searches (fastest of latencyPasses per
// query, as the vector runs do) and stores (each one fsync) on the vault.
func measureInProcess(path string, enc embed.Encoder, queries []string, stores int, rep *LatencyReport) error {
	v, err := vault.Open(path, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(benchPass)}, Encoder: enc})
	if err != nil {
		return fmt.Errorf("bench: open vault: %w", err)
	}
	// Opening without Argon2id (the unlock session's way), fastest of 3.
	key := vaultfmt.Unlock{MasterKey: v.File().MasterKey()}
	for range 3 {
		v.Close()
		t := time.Now()
		if v, err = vault.Open(path, vault.Options{Unlock: key, Encoder: enc}); err != nil {
			return fmt.Errorf("bench: open vault: %w", err)
		}
		if ms := float64(time.Since(t).Microseconds()) / 1000; rep.OpenMs == 0 || ms < rep.OpenMs {
			rep.OpenMs = ms
		}
	}
	defer v.Close()
	st, err := v.Status()
	if err != nil {
		return fmt.Errorf("bench: status: %w", err)
	}
	rep.Memories = st.Records
	for _, q := range queries[:min(len(queries), 30)] {
		if _, err := v.Search(vault.SearchRequest{Query: q}); err != nil {
			return fmt.Errorf("bench: search: %w", err)
		}
	}
	lat := make(latencies, len(queries))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for pass := range latencyPasses {
		for i, q := range queries {
			t := time.Now()
			if _, err := v.Search(vault.SearchRequest{Query: q}); err != nil {
				return fmt.Errorf("bench: search: %w", err)
			}
			if d := time.Since(t); pass == 0 || d < lat[i] {
				lat[i] = d
			}
		}
	}
	runtime.ReadMemStats(&after)
	if n := latencyPasses * len(queries); n > 0 {
		rep.SearchAllocKB = float64(after.TotalAlloc-before.TotalAlloc) / float64(n) / 1024
	}
	rep.SearchP50Ms, rep.SearchP95Ms = lat.p(0.50), lat.p(0.95)
	more := GenerateClaims(2, stores)
	slat := make(latencies, stores)
	for i, c := range more {
		t := time.Now()
		if _, err := v.Store(vault.StoreRequest{Text: fmt.Sprintf("%s (bench store %d)", c.Text, i), Source: "bench store", Tags: c.Tags}); err != nil {
			return fmt.Errorf("bench: store: %w", err)
		}
		slat[i] = time.Since(t)
	}
	rep.StoreP50Ms, rep.StoreP95Ms = slat.p(0.50), slat.p(0.95)
	if len(slat) > 0 {
		rep.FirstStoreMs = float64(slat[0].Microseconds()) / 1000
	}
	return nil
}

// WriteText prints the table: this machine beside the spec's figures.
func (r LatencyReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	held := fmt.Sprintf("%d memories", r.Records)
	if r.Memories > 0 && r.Memories != r.Records {
		held = fmt.Sprintf("%d memories (of %d generated lines: the rest repeat a claim)", r.Memories, r.Records)
	}
	fmt.Fprintf(tw, "measured %s on %s (%d cores), model %s, %s\n\n", r.Date, r.CPU, r.Cores, r.Model, held)
	fmt.Fprintf(tw, "what\tthis machine\t%s\n", originColumn)
	// row prints one line; a figure this run did not measure (zero) is
	// left out rather than printed as 0.
	row := func(measured bool, what, ours, spec string) {
		if measured {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", what, ours, orDash(spec))
		}
	}
	row(r.InitMs > 0, "fresh install, its empty vault: init, then open offline (subprocess)", fmt.Sprintf("init %.0f ms, open --assert-offline %.0f ms", r.InitMs, r.OpenOfflineMs), "")
	row(r.OpenMs > 0, fmt.Sprintf("open a %d-memory vault (unlock excluded)", r.Records), fmt.Sprintf("%.0f ms", r.OpenMs), "")
	row(r.Exact.N > 0, fmt.Sprintf("vector search, %d exact (int8) p50 / p95", r.Exact.N), fmt.Sprintf("%.3f / %.3f ms", r.Exact.P50Ms, r.Exact.P95Ms), "")
	row(r.HNSW.N > 0, fmt.Sprintf("vector search, %d HNSW (recall@10 %.3f) p50 / p95", r.HNSW.N, r.HNSW.Recall), fmt.Sprintf("%.3f / %.3f ms", r.HNSW.P50Ms, r.HNSW.P95Ms), "")
	row(r.SearchP50Ms > 0, fmt.Sprintf("hybrid search at %d, in process, median / p95", r.Records), fmt.Sprintf("%.2f / %.2f ms", r.SearchP50Ms, r.SearchP95Ms), specFigures["search"])
	row(r.MCPSearchP50Ms > 0, fmt.Sprintf("hybrid search at %d, through MCP, median / p95", r.Records), fmt.Sprintf("%.2f / %.2f ms", r.MCPSearchP50Ms, r.MCPSearchP95Ms), specFigures["search"])
	row(r.DaemonRSSLoadedMB > 0, fmt.Sprintf("embedding daemon RSS (%s): loaded / after 2 batches of 64 long texts (%d windows each)", r.DaemonModel, r.DaemonBatchWindows), fmt.Sprintf("%.1f / %.1f MB", r.DaemonRSSLoadedMB, r.DaemonRSSBatchesMB), specFigures["daemon"])
	row(r.ServerRSSMB > 0, fmt.Sprintf("MCP server RSS at %d (peak)", r.Records), fmt.Sprintf("%.1f MB (%.1f)", r.ServerRSSMB, r.ServerPeakMB), specFigures["server"])
	row(r.StoreP50Ms > 0, "store one memory (embed + seal + fsync) p50 / p95", fmt.Sprintf("%.2f / %.2f ms", r.StoreP50Ms, r.StoreP95Ms), "")
	row(r.FirstStoreMs > 0, "the first store after the open", fmt.Sprintf("%.2f ms", r.FirstStoreMs), "")
	row(r.SearchAllocKB > 0, "memory one in-process search allocates", fmt.Sprintf("%.0f KB", r.SearchAllocKB), "")
	row(r.BinaryBytes > 0, "binary size", fmt.Sprintf("%.1f MB", float64(r.BinaryBytes)/1e6), "")
	row(r.Tests > 0, "tests (fuzz targets, benchmarks)", fmt.Sprintf("%d (%d, %d)", r.Tests, r.FuzzTargets, r.Benchmarks), specFigures["tests"])
	fmt.Fprintf(tw, "\n%s\n", originSources)
	if r.VaultReused {
		fmt.Fprintf(tw, "\nreused the kept vault %s (copying it took %.1f s); the whole run %.1f s\n", r.VaultCache, r.BuildVaultS, r.TotalS)
	} else {
		fmt.Fprintf(tw, "\nbuilding the vault took %.1f s (peak RSS %.0f MB); the whole run %.1f s\n", r.BuildVaultS, r.BuildPeakMB, r.TotalS)
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(tw, "skipped: %s\n", strings.Join(r.Skipped, ", "))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("bench: write table: %w", err)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "not published"
	}
	return s
}

// benchProcs runs the parts of the table that are separate processes.
type benchProcs struct {
	exe string
	dir string
	log io.Writer
}

// command runs the binary with a HOME of its own under the bench's temp
// dir. The kept vault is copied afresh for every run, so the user's
// ~/.compartment/seen would remember the last run's copy and refuse this
// one as a rollback; and a benchmark has no business writing there. The
// models and the ONNX Runtime are still read where the user keeps them.
func (p benchProcs) command(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(p.exe, args...)
	cmd.Env = append(os.Environ(), "COMPARTMENT_EMBED_SOCKET="+filepath.Join(p.dir, "embed.sock"),
		"HOME="+filepath.Join(p.dir, "home"), embed.EnvModelsDir+"="+embed.DefaultModelsDir())
	if lib, err := embed.FindRuntimeLibrary(); err == nil && os.Getenv(embed.EnvORTLib) == "" {
		cmd.Env = append(cmd.Env, embed.EnvORTLib+"="+lib)
	}
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// freshInstall times `init` of a new vault and its first open under the
// offline guard, each as its own process (Argon2id included).
func (p benchProcs) freshInstall() (initMs, openMs float64, err error) {
	path := filepath.Join(p.dir, "fresh", "memory.vault")
	env := []string{"COMPARTMENT_PASSPHRASE=" + benchPass, "COMPARTMENT_SESSION_DIR=" + filepath.Join(p.dir, "session")}
	t := time.Now()
	if out, err := p.command(env, "--vault", path, "init", "--no-app").CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("bench: init: %v: %s", err, strings.TrimSpace(string(out)))
	}
	initMs = float64(time.Since(t).Microseconds()) / 1000
	t = time.Now()
	if out, err := p.command(env, "--assert-offline", "--vault", path, "status").CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("bench: open offline: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return initMs, float64(time.Since(t).Microseconds()) / 1000, nil
}

// rssOf reads a process's resident and peak resident set (MB) from /proc.
func rssOf(pid int) (rss, peak float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		var kb float64
		if _, err := fmt.Sscanf(line, "VmRSS: %f kB", &kb); err == nil {
			rss = kb / 1024
		}
		if _, err := fmt.Sscanf(line, "VmHWM: %f kB", &kb); err == nil {
			peak = kb / 1024
		}
	}
	return rss, peak
}

// PeakRSSMB is this process's peak resident set (VmHWM), in MB; 0 where
// the system does not say (no /proc).
func PeakRSSMB() float64 {
	_, peak := rssOf(os.Getpid())
	return peak
}

// findSourceDir looks for this module's source tree: the working
// directory or one of its parents, else the binary's (bin/..).
func findSourceDir(exe string) string {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe != "" {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, d := range starts {
		for ; ; d = filepath.Dir(d) {
			if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/compartment/compartment\n") {
				return d
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return ""
}

// countTests counts the test, fuzz and benchmark functions in the
// module's _test.go files.
func countTests(root string) (tests, fuzz, benches int) {
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasPrefix(line, "func Test") && strings.Contains(line, "*testing.T)"):
				tests++
			case strings.HasPrefix(line, "func Fuzz") && strings.Contains(line, "*testing.F)"):
				fuzz++
			case strings.HasPrefix(line, "func Benchmark") && strings.Contains(line, "*testing.B)"):
				benches++
			}
		}
		return nil
	})
	return tests, fuzz, benches
}
