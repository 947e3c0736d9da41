//go:build cgo

package embed

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Benchmarks of the ONNX path. The numbers that matter:
//
//	BenchmarkONNXInference/*      the model alone (padded batch → hidden states)
//	BenchmarkONNXEmbed/*          tokenise + frame + inference + pool + normalise, in-process
//	BenchmarkONNXDaemonEmbed/*    the same through the daemon's socket
//	BenchmarkONNXTokenize/*       the tokenizer alone
//	BenchmarkONNXDaemonRSS        the daemon's memory after serving (run it alone: -bench DaemonRSS)
//	BenchmarkONNXBgeSmallShape/*  a random model of bge-small-en-v1.5's exact shape (needs python3-onnx)
//
// Overhead beyond inference = Embed − Inference (in-process) and
// DaemonEmbed − Inference (through the daemon).

const onnxBenchQuery = "where did the staging database move?"

// onnxBenchMemory is a typical stored memory of 200 characters.
var onnxBenchMemory = func() string {
	s := "Alice moved the staging database to db-2.internal on Tuesday after the disk on db-1 filled up; the old host stays read-only until the March audit, then it is wiped [ops-log, 2026-03-01]."
	for len(s) < 200 {
		s += " ok."
	}
	return s[:200]
}()

var onnxBenchSink []float32

func benchEncoder(b *testing.B, path string) *onnxEncoder {
	b.Helper()
	requireORT(b)
	enc, err := Load(LoadOptions{Path: path})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { enc.Close() })
	return enc.(*onnxEncoder)
}

func BenchmarkONNXTokenize(b *testing.B) {
	tok := loadFixtureTokenizer(b)
	for name, text := range map[string]string{"query": onnxBenchQuery, "memory200": onnxBenchMemory} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				tok.Encode(text)
			}
		})
	}
}

// benchInference times the model alone on the framed ids of text.
func benchInference(b *testing.B, e *onnxEncoder, text string) {
	ids, _, _ := e.tok.Encode(text)
	width := len(ids) + 2
	in := make([]int64, width)
	mask := make([]int64, width)
	types := make([]int64, width)
	in[0], in[width-1] = int64(e.specials.Open), int64(e.specials.Close)
	for i, id := range ids {
		in[i+1] = int64(id)
	}
	for i := range mask {
		mask[i] = 1
	}
	done := measureCPU(b, 0)
	for b.Loop() {
		if _, err := e.run(1, width, in, mask, types); err != nil {
			b.Fatal(err)
		}
	}
	done()
	b.ReportMetric(float64(width), "tokens")
}

func BenchmarkONNXInference(b *testing.B) {
	e := benchEncoder(b, fixtureDir)
	b.Run("query", func(b *testing.B) { benchInference(b, e, e.info.QueryPrefix+onnxBenchQuery) })
	b.Run("memory200", func(b *testing.B) { benchInference(b, e, onnxBenchMemory) })
}

// benchEmbed times the whole Encoder call.
func benchEmbed(b *testing.B, enc Encoder) {
	b.Run("query", func(b *testing.B) {
		b.ReportAllocs()
		done := measureCPU(b, DaemonPID(enc))
		for b.Loop() {
			v, err := enc.EmbedQuery(onnxBenchQuery)
			if err != nil {
				b.Fatal(err)
			}
			onnxBenchSink = v
		}
		done()
	})
	b.Run("memory200", func(b *testing.B) {
		b.ReportAllocs()
		done := measureCPU(b, DaemonPID(enc))
		for b.Loop() {
			docs, err := enc.EmbedDocuments([]string{onnxBenchMemory})
			if err != nil {
				b.Fatal(err)
			}
			onnxBenchSink = docs[0].Vectors[0]
		}
		done()
	})
}

// measureCPU reports CPU time per op, this process's (all threads) and,
// when pid is not 0, the daemon's: on a loaded machine CPU time says more
// about the code than wall time does.
func measureCPU(b *testing.B, pid int) func() {
	self0, daemon0 := selfCPU(), procCPU(pid)
	return func() {
		n := float64(b.N)
		b.ReportMetric(float64(selfCPU()-self0)/n/1e3, "cpu-µs/op")
		if pid != 0 {
			b.ReportMetric(float64(procCPU(pid)-daemon0)/n/1e3, "daemon-cpu-µs/op")
		}
	}
}

// selfCPU is this process's user+system time in ns.
func selfCPU() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// procCPU is another process's user+system time in ns (10 ms ticks).
func procCPU(pid int) int64 {
	if pid == 0 {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return (utime + stime) * 1e7 // USER_HZ = 100
}

func BenchmarkONNXEmbed(b *testing.B) {
	benchEmbed(b, benchEncoder(b, fixtureDir))
}

// benchDaemon starts a daemon for model on a private socket, from this
// test binary, and returns a client.
func benchDaemon(b *testing.B, model string) Encoder {
	b.Helper()
	dir, err := os.MkdirTemp("", "cb")
	if err != nil {
		b.Fatal(err)
	}
	socket := filepath.Join(dir, "embed.sock")
	for k, v := range map[string]string{EnvEmbedSocket: socket, EnvEmbedIdle: "60", EnvEmbedDaemon: "", helperEnv: "1"} {
		old, had := os.LookupEnv(k)
		os.Setenv(k, v)
		b.Cleanup(func() {
			if had {
				os.Setenv(k, old)
			} else {
				os.Unsetenv(k)
			}
		})
	}
	saved := DaemonArgv
	DaemonArgv = helperArgv("daemon")
	b.Cleanup(func() {
		DaemonArgv = saved
		StopDaemon(socket)
		os.RemoveAll(dir)
	})
	enc, err := Open(LoadOptions{Name: model})
	if err != nil {
		b.Fatal(err)
	}
	if DaemonPID(enc) == 0 {
		b.Fatal("no daemon")
	}
	b.Cleanup(func() { enc.Close() })
	return enc
}

func BenchmarkONNXDaemonEmbed(b *testing.B) {
	requireORT(b)
	abs, _ := filepath.Abs(fixtureDir)
	benchEmbed(b, benchDaemon(b, abs))
}

// BenchmarkONNXDaemonRSS serves the fixture to separate client processes
// (which load no model) and reports the daemon's resident and
// proportional set sizes once it is idle. Run it on its own, so this
// process has not mapped ONNX Runtime and shared pages are not counted
// against the daemon.
func BenchmarkONNXDaemonRSS(b *testing.B) {
	requireORT(b)
	abs, _ := filepath.Abs(fixtureDir)
	enc := benchDaemon(b, abs)
	pid := DaemonPID(enc)
	enc.Close()
	for b.Loop() {
		argv := helperArgv("client")
		if out, err := exec.Command(argv[0], append(argv[1:], abs)...).Output(); err != nil {
			b.Fatalf("client: %v %s", err, out)
		}
	}
	waitIdle(b)
	rss, pss := procMemory(b, pid)
	b.ReportMetric(rss, "rss_MB")
	b.ReportMetric(pss, "pss_MB")
}

// waitIdle lets the daemon's after-request trim run.
func waitIdle(b *testing.B) {
	for i := 0; i < 4; i++ {
		st, err := DaemonStatusAt("")
		if err == nil && st.Clients == 0 {
			break
		}
		exec.Command("sleep", "0.25").Run()
	}
	time.Sleep(trimAfter + 500*time.Millisecond)
}

// procMemory reads Rss and Pss of a process from smaps_rollup, in MB.
func procMemory(b *testing.B, pid int) (rss, pss float64) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(fields[1], 64)
		switch fields[0] {
		case "Rss:":
			rss = kb / 1024
		case "Pss:":
			pss = kb / 1024
		}
	}
	return rss, pss
}

var bgeShape struct {
	once sync.Once
	dirs map[string]string
	err  error
}

// bgeShapeModels generates, once per machine, random models of
// bge-small-en-v1.5's exact shape (12 layers, 384 hidden, 12 heads, 1536
// intermediate) in float32 and dynamic int8, with the fixture tokenizer,
// under the system temp dir. They are never committed.
func bgeShapeModels(b *testing.B) map[string]string {
	b.Helper()
	bgeShape.once.Do(func() {
		if err := exec.Command("/usr/bin/python3", "-c", "import onnx, numpy").Run(); err != nil {
			bgeShape.err = fmt.Errorf("python3-onnx is not installed (scripts/deps/onnx-tools.sh): %v", err)
			return
		}
		bgeShape.dirs = map[string]string{}
		for _, quant := range []string{"none", "dynamic"} {
			dir := filepath.Join(os.TempDir(), "compartment-bench-bge-small-"+quant)
			model := filepath.Join(dir, "model.onnx")
			if _, err := os.Stat(model); err != nil {
				os.MkdirAll(dir, 0o700)
				out, err := exec.Command("/usr/bin/python3", filepath.Join(fixtureDir, "gen.py"), "--preset", "bge-small",
					"--quant", quant, "--out", model).CombinedOutput()
				if err != nil {
					bgeShape.err = fmt.Errorf("gen.py: %v\n%s", err, out)
					return
				}
			}
			copyFile(b, filepath.Join(fixtureDir, "tokenizer.json"), filepath.Join(dir, "tokenizer.json"))
			if err := writeBenchManifest(dir); err != nil {
				bgeShape.err = err
				return
			}
			bgeShape.dirs[map[string]string{"none": "f32", "dynamic": "int8"}[quant]] = dir
		}
	})
	if bgeShape.err != nil {
		b.Skip(bgeShape.err)
	}
	return bgeShape.dirs
}

func writeBenchManifest(dir string) error {
	m := Manifest{Format: manifestFormat, Name: "bge-small-shape-random", Backend: "onnx", Dim: 384, Pooling: "cls",
		MaxTokens: 512, QueryPrefix: "Represent this sentence for searching relevant passages: ", Licence: "random weights"}
	for _, f := range []struct{ role, path string }{{RoleWeights, "model.onnx"}, {RoleTokenizer, "tokenizer.json"}} {
		sum, size, err := hashFile(filepath.Join(dir, f.path))
		if err != nil {
			return err
		}
		m.Files = append(m.Files, ManifestItem{Role: f.role, Path: f.path, SHA256: sum, Size: size})
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ManifestFile), data, 0o600)
}

// BenchmarkONNXBgeSmallShape estimates what the real bge-small would cost
// here: same graph size and arithmetic, random weights.
func BenchmarkONNXBgeSmallShape(b *testing.B) {
	requireORT(b)
	for _, precision := range []string{"int8", "f32"} {
		b.Run(precision, func(b *testing.B) {
			e := benchEncoder(b, bgeShapeModels(b)[precision])
			b.Run("inference-query", func(b *testing.B) { benchInference(b, e, e.info.QueryPrefix+onnxBenchQuery) })
			b.Run("inference-memory200", func(b *testing.B) { benchInference(b, e, onnxBenchMemory) })
			benchEmbed(b, e)
			b.Run("window448", func(b *testing.B) {
				long := strings.Repeat("river stone ", WindowTokens/2)
				for b.Loop() {
					if _, err := e.EmbedDocuments([]string{long}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// constantEncoder answers at once with a fixed 384-dimensional vector: a
// daemon serving it measures the socket round trip and the wire encoding
// alone, at bge-small's vector size.
type constantEncoder struct{ v []float32 }

const constantModel = "test:constant"

func init() {
	testEncoders[constantModel] = func() (Encoder, error) {
		v := make([]float32, 384)
		v[0] = 1
		return constantEncoder{v}, nil
	}
}

func (c constantEncoder) Info() ModelInfo {
	return ModelInfo{Name: "constant", SHA256: [32]byte{7}, Dim: len(c.v), MaxTokens: 512, Pooling: "cls"}
}

func (c constantEncoder) EmbedDocuments(texts []string) ([]Document, error) {
	docs := make([]Document, len(texts))
	for i := range docs {
		docs[i] = Document{Vectors: [][]float32{c.v}, Tokens: len(texts[i]) / 4, Windows: [][2]int{{0, len(texts[i]) / 4}}}
	}
	return docs, nil
}

func (c constantEncoder) EmbedQuery(string) ([]float32, error) { return c.v, nil }
func (c constantEncoder) Close() error                         { return nil }

// BenchmarkONNXDaemonRoundTrip is the daemon's cost beyond the encoder:
// framing, the Unix socket both ways, decoding 384 floats.
func BenchmarkONNXDaemonRoundTrip(b *testing.B) {
	benchEmbed(b, benchDaemon(b, constantModel))
}

// BenchmarkONNXOverhead interleaves, in every iteration, the model alone,
// the in-process Encoder call and the daemon's, on the same text, so load
// from the rest of the machine falls on all three alike. It reports each
// as µs/op and the overheads beyond inference: tokenise + frame + pool +
// normalise in-process, and that plus the socket round trip through the
// daemon.
func BenchmarkONNXOverhead(b *testing.B) {
	requireORT(b)
	abs, _ := filepath.Abs(fixtureDir)
	local := benchEncoder(b, fixtureDir)
	remote := benchDaemon(b, abs)
	for name, text := range map[string]string{"query": onnxBenchQuery, "memory200": onnxBenchMemory} {
		b.Run(name, func(b *testing.B) {
			framed := text
			if name == "query" {
				framed = local.info.QueryPrefix + text
			}
			ids, _, _ := local.tok.Encode(framed)
			width := len(ids) + 2
			in, mask, types := make([]int64, width), make([]int64, width), make([]int64, width)
			in[0], in[width-1] = int64(local.specials.Open), int64(local.specials.Close)
			for i, id := range ids {
				in[i+1] = int64(id)
			}
			for i := range mask {
				mask[i] = 1
			}
			embed := func(enc Encoder) {
				var err error
				if name == "query" {
					_, err = enc.EmbedQuery(text)
				} else {
					_, err = enc.EmbedDocuments([]string{text})
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			infer := func() {
				if _, err := local.run(1, width, in, mask, types); err != nil {
					b.Fatal(err)
				}
			}
			// The order rotates: whatever runs first after a wait pays for
			// a cold cache, and that must not fall on one of them only.
			steps := []func(){infer, func() { embed(local) }, func() { embed(remote) }}
			var spent [3]time.Duration
			i := 0
			for b.Loop() {
				for k := range steps {
					j := (i + k) % len(steps)
					t0 := time.Now()
					steps[j]()
					spent[j] += time.Since(t0)
				}
				i++
			}
			tInfer, tLocal, tRemote := spent[0], spent[1], spent[2]
			us := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
			b.ReportMetric(us(tInfer), "inference-µs")
			b.ReportMetric(us(tLocal), "inprocess-µs")
			b.ReportMetric(us(tRemote), "daemon-µs")
			b.ReportMetric(us(tLocal-tInfer), "overhead-inprocess-µs")
			b.ReportMetric(us(tRemote-tInfer), "overhead-daemon-µs")
		})
	}
}
