package bench

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compartment/compartment/ann"
)

// TestRunVectorsSmall runs the harness at toy sizes and checks the JSON
// carries every field the issue names, with plausible values.
func TestRunVectorsSmall(t *testing.T) {
	dir := t.TempDir()
	rep, err := RunVectors(VectorOptions{
		Dim: 64, ExactN: 2000, HNSWN: []int{3000}, Queries: 50, EfSearch: []int{16, 64},
		Storages: []ann.Storage{ann.F32, ann.Int8}, ExportDir: dir,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rep)
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, path := range []string{
		"kernels.dot_i8_384_ns", "kernels.dot_i8_384_generic_ns", "kernels.dot_f32_384_ns", "kernels.dot_f32_384_generic_ns",
		"vector.exact.n", "vector.exact.dim", "vector.exact.p50_ms", "vector.exact.p95_ms",
		"vector.hnsw.n", "vector.hnsw.recall_at_10", "vector.hnsw.p50_ms", "vector.hnsw.p95_ms", "vector.hnsw.build_s", "cpu",
	} {
		var cur any = m
		for _, part := range strings.Split(path, ".") {
			cur = cur.(map[string]any)[part]
		}
		if cur == nil {
			t.Errorf("JSON lacks %s", path)
		}
	}
	if rep.Vector.Exact.N != 2000 || rep.Vector.HNSW.N != 3000 || rep.Vector.ExactF32.Recall != 1 {
		t.Fatalf("report: %+v", rep.Vector)
	}
	if rep.Vector.HNSW.Recall < 0.9 || rep.Kernels.DotI8 <= 0 {
		t.Fatalf("implausible: %+v %+v", rep.Vector.HNSW, rep.Kernels)
	}
	if !strings.Contains(rep.String(), "exact") {
		t.Fatalf("table:\n%s", rep.String())
	}
	// The exported .npy holds the same vectors the run used.
	raw, err := os.ReadFile(filepath.Join(dir, "base.npy"))
	if err != nil {
		t.Fatal(err)
	}
	hlen := int(binary.LittleEndian.Uint16(raw[8:]))
	if string(raw[:6]) != "\x93NUMPY" || (10+hlen)%64 != 0 || len(raw) != 10+hlen+4*3000*64 {
		t.Fatalf("bad .npy: header %q, %d bytes", raw[:10+hlen], len(raw))
	}
	if _, err := os.Stat(filepath.Join(dir, "ours.json")); err != nil {
		t.Fatal(err)
	}
}
