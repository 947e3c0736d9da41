package vault

import (
	"sort"
	"strings"
	"unicode"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/search"
)

// index holds the live records in the hybrid search engine. Records get
// dense doc numbers for the engine; the numbers live only in RAM.
type index struct {
	v      *Vault
	engine *search.Engine
	docOf  map[string]uint32
	recOf  map[uint32]*Record
	next   uint32
	free   []uint32
	// namespaces counts live records per namespace.
	namespaces map[string]int
}

func newIndex(v *Vault) *index {
	dim := 0
	if v.enc != nil {
		dim = v.enc.Info().Dim
	}
	engine := search.NewWith(dim, v.engineOptions())
	return &index{v: v, engine: engine, docOf: map[string]uint32{}, recOf: map[uint32]*Record{}, namespaces: map[string]int{}}
}

// sizeFor makes the empty index's record maps ready for n records, so a
// restore fills them without growing them step by step.
func (ix *index) sizeFor(n int) {
	ix.docOf, ix.recOf = make(map[string]uint32, n), make(map[uint32]*Record, n)
}

// engineOptions configure the vault's search engine.
func (v *Vault) engineOptions() search.Options {
	return search.Options{HNSWThreshold: v.cfg.Settings.HNSWThreshold, Calibration: v.calibration(), Reads: embed.ReadsOf(v.enc)}
}

// add indexes a live record: its claim literally, and its windows when they
// come from the loaded model.
func (ix *index) add(r *Record) {
	doc, ok := ix.docOf[r.ID]
	if !ok {
		doc = ix.alloc()
		ix.docOf[r.ID] = doc
	}
	if old, ok := ix.recOf[doc]; ok {
		ix.countNamespace(old.Namespace, -1)
	}
	ix.recOf[doc] = r
	ix.countNamespace(r.Namespace, +1)
	var windows [][]float32
	if ix.v.hasCurrentVectors(r) {
		windows = r.Vectors.Float32()
	}
	// Add fails only on a dimension mismatch, which hasCurrentVectors
	// rules out; the record is then still found literally.
	_ = ix.engine.Add(doc, r.Text, windows, metaOf(r))
	if windows != nil {
		r.Vectors.shareWithIndex(ix.engine, doc)
	}
}

// build indexes every live record of a fresh replay at once, in write
// order (so doc numbers are deterministic).
func (ix *index) build(records map[string]*Record) error {
	live := make([]*Record, 0, len(records))
	for _, r := range records {
		if r.Live() {
			live = append(live, r)
		}
	}
	sort.Slice(live, func(i, j int) bool { return live[i].Seq < live[j].Seq })
	docs := make([]search.Doc, len(live))
	for i, r := range live {
		doc := ix.alloc()
		ix.docOf[r.ID] = doc
		ix.recOf[doc] = r
		ix.countNamespace(r.Namespace, +1)
		docs[i] = search.Doc{ID: doc, Text: r.Text, Meta: metaOf(r)}
		switch vs := r.Vectors; {
		case !ix.v.hasCurrentVectors(r):
		case vs.F32 != nil:
			docs[i].Windows = vs.F32
		default:
			docs[i].Int8, docs[i].Scales = vs.I8, vs.Scales
		}
	}
	if err := ix.engine.AddBatch(docs); err != nil {
		return err
	}
	for i, r := range live {
		if docs[i].Int8 != nil {
			r.Vectors.shareWithIndex(ix.engine, docs[i].ID)
		}
	}
	return nil
}

func (ix *index) remove(r *Record) {
	doc, ok := ix.docOf[r.ID]
	if !ok {
		return
	}
	ix.recOf[doc].Vectors.reclaim()
	r.Vectors.reclaim()
	ix.engine.Remove(doc)
	ix.countNamespace(ix.recOf[doc].Namespace, -1)
	delete(ix.docOf, r.ID)
	delete(ix.recOf, doc)
	ix.free = append(ix.free, doc)
}

func (ix *index) countNamespace(ns string, delta int) {
	if ix.namespaces[ns] += delta; ix.namespaces[ns] <= 0 {
		delete(ix.namespaces, ns)
	}
}

func (ix *index) alloc() uint32 {
	if n := len(ix.free); n > 0 {
		doc := ix.free[n-1]
		ix.free = ix.free[:n-1]
		return doc
	}
	ix.next++
	return ix.next - 1
}

func metaOf(r *Record) search.DocMeta {
	return search.DocMeta{
		Namespace: r.Namespace, Seq: r.Seq, Importance: r.Importance,
		Opinion: r.Kind == KindOpinion, Affirmed: r.Affirmed,
		Reference: r.Reference || isPack(r.Namespace),
	}
}

func isPack(ns string) bool { return ns == "packs" || strings.HasPrefix(ns, "packs/") }

// similarHit is a live record and its best-window cosine to a vector.
type similarHit struct {
	rec *Record
	cos float64
}

// similar returns up to k live records in namespace nearest to vec (by
// their best window), from the vector index.
func (ix *index) similar(vec []float32, namespace string, k int) []similarHit {
	near, err := ix.engine.Nearest(vec, k, func(doc uint32) bool {
		r := ix.recOf[doc]
		return r != nil && r.Namespace == namespace
	})
	if err != nil {
		return nil
	}
	hits := make([]similarHit, len(near))
	for i, n := range near {
		hits[i] = similarHit{ix.recOf[n.Doc], n.Cos}
	}
	return hits
}

// sameText returns live records in namespace whose claim equals text,
// ignoring case and spacing: the similarity checks' stand-in when the vault
// has no semantic channel.
func (ix *index) sameText(text, namespace string) []*Record {
	key := normalizeClaim(text)
	var out []*Record
	for _, r := range ix.recOf {
		if r.Namespace == namespace && normalizeClaim(r.Text) == key {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// normalizeClaim folds case, spacing and punctuation at word edges, so
// "The port is 5433." and "the port is  5433" compare equal.
func normalizeClaim(s string) string {
	words := strings.Fields(strings.ToLower(s))
	for i, w := range words {
		words[i] = strings.TrimFunc(w, unicode.IsPunct)
	}
	return strings.Join(words, " ")
}

// bestCos is a record's score against vec: its best window.
func bestCos(windows [][]float32, vec []float32) float64 {
	best := -2.0
	for _, w := range windows {
		var s float64
		for i := range w {
			s += float64(w[i]) * float64(vec[i])
		}
		best = max(best, s)
	}
	return best
}

func sortHits(hits []similarHit) {
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].cos != hits[j].cos {
			return hits[i].cos > hits[j].cos
		}
		return hits[i].rec.Seq < hits[j].rec.Seq
	})
}
