package vault

import (
	"sort"
	"strings"
	"unicode"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/search"
	"github.com/compartment/compartment/vaultfmt"
)

// index holds the live records in the hybrid search engine. Records get
// dense doc numbers for the engine; the numbers live only in RAM.
type index struct {
	v      *Vault
	engine *search.Engine
	// docOf and recOf hold the records indexed as *Record; the rows of
	// the record table an open adopted are indexed as rows instead (see
	// recordSet): rows[doc] is the row under doc (−1: none), rowDoc[row]
	// its doc (tableNoDoc: none), tabled how many there are.
	docOf  map[string]uint32
	recOf  map[uint32]*Record
	set    *recordSet
	tab    *recordTable
	rows   []int32
	rowDoc []uint32
	tabled int
	next   uint32
	free   []uint32
	// namespaces counts live records per namespace.
	namespaces map[string]int
}

func newIndex(v *Vault, set *recordSet) *index {
	dim := 0
	if v.enc != nil {
		dim = v.enc.Info().Dim
	}
	engine := search.NewWith(dim, v.engineOptions())
	return &index{v: v, engine: engine, set: set, docOf: map[string]uint32{}, recOf: map[uint32]*Record{}, namespaces: map[string]int{}}
}

// tableDoc is the doc of the table row of id, when it is indexed as a row.
func (ix *index) tableDoc(id string) (doc uint32, row int, ok bool) {
	if ix.tab == nil {
		return 0, -1, false
	}
	raw, ok := parseID(id)
	if !ok {
		return 0, -1, false
	}
	if row = ix.tab.row(raw); row < 0 || ix.rowDoc[row] == tableNoDoc {
		return 0, -1, false
	}
	return ix.rowDoc[row], row, true
}

// docOfID is the doc id is indexed under.
func (ix *index) docOfID(id string) (uint32, bool) {
	if doc, ok := ix.docOf[id]; ok {
		return doc, true
	}
	doc, _, ok := ix.tableDoc(id)
	return doc, ok
}

// tableRow is the table row indexed under doc, or −1.
func (ix *index) tableRow(doc uint32) int {
	if int64(doc) < int64(len(ix.rows)) {
		return int(ix.rows[doc])
	}
	return -1
}

// rec is the record indexed under doc (built now if it is a row), or nil.
func (ix *index) rec(doc uint32) *Record {
	if r, ok := ix.recOf[doc]; ok {
		return r
	}
	row := ix.tableRow(doc)
	switch {
	case row < 0:
		return nil
	case ix.set.t == ix.tab:
		return ix.set.rowRecord(row)
	}
	return ix.set.get(idString(vaultfmt.ID(ix.tab.id(row))))
}

// peek is rec without keeping what it builds: a row not yet built is
// read into a record of the caller's own. A search's results are copied
// into hits and dropped; kept, every distinct result a server returned
// stayed in the set as a *Record, until a long-running server held the
// table's rows a second time (50 MB at 100,000 memories).
func (ix *index) peek(doc uint32) *Record {
	if r, ok := ix.recOf[doc]; ok {
		return r
	}
	if row := ix.tableRow(doc); row >= 0 && ix.set.t == ix.tab && !ix.set.out[row] {
		return ix.tab.record(row, ix.set.engine)
	}
	return ix.rec(doc)
}

// text is the claim of the record under doc, read from its row when it
// is one (no record built), or "".
func (ix *index) text(doc uint32) string {
	if r, ok := ix.recOf[doc]; ok {
		return r.Text
	}
	if row := ix.tableRow(doc); row >= 0 && ix.set.t == ix.tab && !ix.set.out[row] {
		return ix.tab.text(row)
	}
	if r := ix.rec(doc); r != nil {
		return r.Text
	}
	return ""
}

// facet is the filter fields of the record under doc, read from its row
// when it is one (no record built); ok is false when doc holds none.
func (ix *index) facet(doc uint32) (facet, bool) {
	if r, ok := ix.recOf[doc]; ok {
		return facetOf(r), true
	}
	if row := ix.tableRow(doc); row >= 0 {
		return ix.tab.facet(row), true
	}
	return facet{}, false
}

// live is the number of records indexed.
func (ix *index) live() int { return len(ix.recOf) + ix.tabled }

// dropRow forgets that row is indexed under doc, and its namespace's count.
func (ix *index) dropRow(doc uint32, row int) {
	ix.countNamespace(ix.tab.facet(row).Namespace, -1)
	ix.rows[doc], ix.rowDoc[row] = -1, tableNoDoc
	ix.tabled--
}

// eachID calls fn with every indexed doc and its record's id, in no
// particular order, building no record.
func (ix *index) eachID(fn func(doc uint32, id vaultfmt.ID)) {
	for doc, r := range ix.recOf {
		id, ok := parseID(r.ID)
		if !ok {
			id = vaultfmt.ID{} // not a stored id: fn refuses it
		}
		fn(doc, id)
	}
	for doc, row := range ix.rows {
		if row >= 0 {
			fn(uint32(doc), vaultfmt.ID(ix.tab.id(int(row))))
		}
	}
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
		var row int
		if doc, row, ok = ix.tableDoc(r.ID); ok {
			ix.dropRow(doc, row)
		} else {
			doc = ix.alloc()
		}
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
		var row int
		if doc, row, ok = ix.tableDoc(r.ID); !ok {
			return
		}
		// r is the set's record of the row (the only one there is).
		r.Vectors.reclaim()
		ix.engine.Remove(doc)
		ix.dropRow(doc, row)
		ix.free = append(ix.free, doc)
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
	return ix.similarWith(vec, namespace, k, ix.rec)
}

// similarPeek is similar for a reader that only looks at the hits (a
// retag pass reading its neighbours' tags): a row not yet built is read
// into a record of the caller's own, not kept (see peek).
func (ix *index) similarPeek(vec []float32, namespace string, k int) []similarHit {
	return ix.similarWith(vec, namespace, k, ix.peek)
}

func (ix *index) similarWith(vec []float32, namespace string, k int, rec func(uint32) *Record) []similarHit {
	near, err := ix.engine.Nearest(vec, k, func(doc uint32) bool {
		f, ok := ix.facet(doc)
		return ok && f.Namespace == namespace
	})
	if err != nil {
		return nil
	}
	hits := make([]similarHit, len(near))
	for i, n := range near {
		hits[i] = similarHit{rec(n.Doc), n.Cos}
	}
	return hits
}

// sameText returns live records in namespace whose claim equals text,
// ignoring case and spacing: the similarity checks' stand-in when the vault
// has no semantic channel.
func (ix *index) sameText(text, namespace string) []*Record {
	key := normalizeClaim(text)
	var out []*Record
	check := func(r *Record) {
		if r.Namespace == namespace && normalizeClaim(r.Text) == key {
			out = append(out, r)
		}
	}
	for _, r := range ix.recOf {
		check(r)
	}
	for doc, row := range ix.rows {
		if row >= 0 && ix.tab.facet(int(row)).Namespace == namespace {
			check(ix.rec(uint32(doc)))
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
