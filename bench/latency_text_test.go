package bench

import (
	"bytes"
	"strings"
	"testing"
)

// The table names its comparison column and where the figures came from,
// and a row this run did not measure (tests outside the source tree) is
// left out instead of printed as "0 (0, 0)".
func TestLatencyTableNamesItsColumn(t *testing.T) {
	rep := LatencyReport{Records: 20000, SearchP50Ms: 3.1, SearchP95Ms: 4.2, OpenMs: 90, BinaryBytes: 30e6,
		Skipped: []string{"tests (no source tree found)"}}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"original tool (published)", "original Python compartment", "about 12 ms", "11.6 / 14.7 ms", "hybrid search at 20000, in process"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"0 (0, 0)", "tests (fuzz targets", "\tspec\n", "through MCP", "HNSW"} {
		if strings.Contains(out, not) {
			t.Errorf("table shows %q, which this run did not measure:\n%s", not, out)
		}
	}
	if strings.Contains(strings.SplitN(out, "\n", 4)[2], " spec") {
		t.Errorf("the header still says spec:\n%s", out)
	}
}

// The table's first line says how many memories the vault holds when the
// generated lines repeated some (the import stores a claim once).
func TestLatencyTableSaysTheMemoriesHeld(t *testing.T) {
	var b bytes.Buffer
	if err := (LatencyReport{Records: 1000000, Memories: 766811}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if first := strings.SplitN(b.String(), "\n", 2)[0]; !strings.Contains(first, "766811 memories (of 1000000 generated lines") {
		t.Errorf("first line %q", first)
	}
	b.Reset()
	if err := (LatencyReport{Records: 20000, Memories: 20000}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if first := strings.SplitN(b.String(), "\n", 2)[0]; !strings.HasSuffix(first, ", 20000 memories") {
		t.Errorf("first line %q", first)
	}
}
