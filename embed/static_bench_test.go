package embed

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

var benchSink []float32

// BenchmarkStaticEmbedQuery measures one typical question (the target is
// ≤ 0.1 ms).
func BenchmarkStaticEmbedQuery(b *testing.B) {
	enc := openBundled(b)
	b.ReportAllocs()
	for b.Loop() {
		benchSink, _ = enc.EmbedQuery("what did Max decide about the CRM after the meeting last week?")
	}
}

// BenchmarkStaticEmbedMemory embeds one short claim as a document.
func BenchmarkStaticEmbedMemory(b *testing.B) {
	enc := openBundled(b)
	b.ReportAllocs()
	texts := []string{"Moved the customer records from Airtable to Postgres [cli, 2026-11-30]"}
	for b.Loop() {
		docs, _ := enc.EmbedDocuments(texts)
		benchSink = docs[0].Vectors[0]
	}
}

// BenchmarkStaticOpen measures parsing the bundled model, the work of the
// first [OpenStatic] in a process (the target is ≤ 50 ms), and reports the
// process's resident set after opening it and embedding once (the target
// is ≤ 40 MB).
func BenchmarkStaticOpen(b *testing.B) {
	b.ReportAllocs()
	var enc Encoder
	for b.Loop() {
		var err error
		if enc, err = openStatic(staticModelFile, StaticModelName, [32]byte{}); err != nil {
			b.Fatal(err)
		}
	}
	benchSink, _ = enc.EmbedQuery("warm up every row the pooling touches")
	runtime.GC()
	if kb := residentKB(); kb > 0 {
		b.ReportMetric(float64(kb)/1024, "RSS-MB")
	}
}

// residentKB reads VmRSS from /proc/self/status (Linux), 0 elsewhere.
func residentKB() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// BenchmarkStaticV2EmbedQuery is [BenchmarkStaticEmbedQuery] for
// compartment-static-v2, with a number (an identifier unit) in the query
// (the target is ≤ 20 µs).
func BenchmarkStaticV2EmbedQuery(b *testing.B) {
	enc, err := OpenStaticV2()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		benchSink, _ = enc.EmbedQuery("what did Max decide about the CRM on port 5433 after the meeting last week?")
	}
}

// BenchmarkStaticV2Open measures parsing compartment-static-v2 (the target
// is ≤ 30 ms).
func BenchmarkStaticV2Open(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := openStatic(staticV2ModelFile, StaticV2ModelName, [32]byte{}); err != nil {
			b.Fatal(err)
		}
	}
}
