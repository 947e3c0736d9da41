package embed

import (
	"strings"
	"testing"
)

// TestInspect: a document's windows and vectors are the encoder's own; a
// long one lists every window's vector; a query is one window whose
// vector is the query embedding (prefix included, cut at the limit).
func TestInspect(t *testing.T) {
	enc := openBundled(t)
	info := enc.Info()
	short := "The staging database listens on port 5433."
	d, err := Inspect(enc, short, false)
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := enc.EmbedDocuments([]string{short})
	if d.Dim != info.Dim || d.Model != info.Name || d.SHA256 != FormatPin(info.SHA256) || d.Daemon != 0 ||
		d.Tokens != docs[0].Tokens || len(d.Windows) != 1 || len(d.Vector) != info.Dim || d.Vectors != nil {
		t.Fatalf("document: %+v", d)
	}
	long := strings.Repeat("The boiler in the cellar was serviced by the plumber in March. ", 80)
	l, err := Inspect(enc, long, false)
	if err != nil || len(l.Windows) < 2 || len(l.Vectors) != len(l.Windows) || &l.Vectors[0][0] != &l.Vector[0] {
		t.Fatalf("long document: %d windows, %d vectors, %v", len(l.Windows), len(l.Vectors), err)
	}
	q, err := Inspect(enc, long, true)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := enc.EmbedQuery(long)
	if len(q.Windows) != 1 || q.Windows[0] != [2]int{0, q.Tokens} || q.Tokens > info.MaxTokens-2 || q.Vectors != nil {
		t.Fatalf("query: tokens %d windows %v", q.Tokens, q.Windows)
	}
	for i := range want {
		if q.Vector[i] != want[i] {
			t.Fatalf("query vector differs from EmbedQuery at %d", i)
		}
	}
}
