package fts

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// corpus is a deterministic synthetic vault: pseudo-words drawn from a
// Zipf distribution (as in prose), 10 to 60 words a record, with an
// identifier now and then.
type corpus struct {
	words []string
	zipf  *rand.Zipf
	rng   *rand.Rand
}

func newCorpus(seed uint64) *corpus {
	rng := rand.New(rand.NewPCG(seed, 1))
	syll := []string{"ka", "lo", "mi", "ra", "tu", "sen", "vo", "der", "pa", "qui", "nor", "el", "bri", "st", "ha", "gon"}
	words := make([]string, 50000)
	seen := map[string]bool{}
	for i := range words {
		for {
			var b strings.Builder
			for range 1 + rng.IntN(4) {
				b.WriteString(syll[rng.IntN(len(syll))])
			}
			if w := b.String(); !seen[w] {
				seen[w] = true
				words[i] = w
				break
			}
		}
	}
	return &corpus{words: words, zipf: rand.NewZipf(rng, 1.1, 2, uint64(len(words)-1)), rng: rng}
}

func (c *corpus) word() string { return c.words[c.zipf.Uint64()] }

func (c *corpus) record() string {
	var b strings.Builder
	for i := range 10 + c.rng.IntN(50) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.word())
		if c.rng.IntN(40) == 0 {
			b.WriteString(" commit_")
			b.WriteString(c.word())
		}
	}
	return b.String()
}

func (c *corpus) query(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = c.word()
	}
	return strings.Join(ws, " ")
}

var (
	benchOnce  sync.Once
	benchIndex *Index
	benchCorp  *corpus
	benchSink  int
)

func bench20k() (*Index, *corpus) {
	benchOnce.Do(func() {
		benchCorp = newCorpus(1)
		benchIndex = New()
		for i := range 20000 {
			benchIndex.Add(uint32(i), benchCorp.record())
		}
	})
	return benchIndex, benchCorp
}

// BenchmarkSearch20k is the literal channel's query at 20,000 records:
// the search and the top 200 (the candidate pool), as the engine asks.
func BenchmarkSearch20k(b *testing.B) {
	x, c := bench20k()
	for _, tc := range []struct {
		name  string
		words int
	}{{"2words", 2}, {"8words", 8}, {"20words", 20}} {
		queries := make([]string, 1000)
		for i := range queries {
			queries[i] = c.query(tc.words)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r := x.Search(queries[i%len(queries)])
				benchSink += len(r.Top(200))
				i++
			}
		})
	}
	b.Run("misspelt", func(b *testing.B) {
		q := c.words[5] + "xq " + c.words[300] + "zz"
		for b.Loop() {
			benchSink += x.Search(q).Len()
		}
	})
	b.Run("10000chars", func(b *testing.B) {
		q := c.query(2000)[:10000]
		for b.Loop() {
			benchSink += len(x.Search(q).Top(200))
		}
	})
}

func BenchmarkAdd(b *testing.B) {
	c := newCorpus(2)
	recs := make([]string, 20000)
	n := 0
	for i := range recs {
		recs[i] = c.record()
		n += len(recs[i])
	}
	b.SetBytes(int64(n / len(recs)))
	x := New()
	i := 0
	for b.Loop() {
		x.Add(uint32(i%len(recs)), recs[i%len(recs)])
		i++
	}
}

func BenchmarkSnapshot20k(b *testing.B) {
	x, _ := bench20k()
	data, _ := x.MarshalBinary()
	b.Run("marshal", func(b *testing.B) {
		for b.Loop() {
			out, _ := x.MarshalBinary()
			benchSink += len(out)
		}
	})
	b.Run("unmarshal", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			y := New()
			if err := y.UnmarshalBinary(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

var (
	bench100kOnce  sync.Once
	bench100kIndex *Index
	bench100kCorp  *corpus
)

func bench100k() (*Index, *corpus) {
	bench100kOnce.Do(func() {
		bench100kCorp = newCorpus(1)
		bench100kIndex = New()
		for i := range 100000 {
			bench100kIndex.Add(uint32(i), bench100kCorp.record())
		}
	})
	return bench100kIndex, bench100kCorp
}

// BenchmarkSearch100k is the literal channel at 100,000 records (about
// 3.5 million postings): the search, the pool of 200 and the ranks of its
// records and of 200 others (the vector pool's), as the engine asks for
// them: with the exhaustive read of the postings, the seeking one (their
// ratio is the pruning's gain), and the seeking one with the keyed orders
// of Top and FindAll (against seeking: the keys' gain).
func BenchmarkSearch100k(b *testing.B) {
	x, c := bench100k()
	rng := rand.New(rand.NewPCG(4, 4))
	for _, words := range []int{0, 2, 8, 20} {
		queries := make([]string, 1000)
		for i := range queries {
			queries[i] = c.query(words)
			if words == 0 {
				// A question: four of the commonest words (in every
				// other record) and one content word.
				queries[i] = strings.Join([]string{c.words[rng.IntN(20)], c.words[rng.IntN(20)], c.words[1000+rng.IntN(4000)], c.words[rng.IntN(20)], c.words[rng.IntN(20)]}, " ")
			}
		}
		kind := fmt.Sprintf("%dwords", words)
		if words == 0 {
			kind = "question"
		}
		for _, mode := range []struct {
			name        string
			skip, keyed bool
		}{{"exhaustive", false, false}, {"seeking", true, false}, {"keyed", true, true}} {
			b.Run(kind+"/"+mode.name, func(b *testing.B) {
				defer func(skip, keyed bool) { skipPostings, keyedOrder = skip, keyed }(skipPostings, keyedOrder)
				skipPostings, keyedOrder = mode.skip, mode.keyed
				searchAsHybrid(b, x, queries)
			})
		}
	}
}

// claimCorpus is a deterministic vault of short claims shaped like the
// latency table's generated memories (bench.GenerateClaims, which fts
// cannot import): a few templates of common words around names, numbers,
// hosts and serials, so most of the vocabulary is terms one or two records
// hold, as in a real vault at scale.
type claimCorpus struct {
	rng   *rand.Rand
	names []string
	i     int
}

func newClaimCorpus(seed uint64) *claimCorpus {
	rng := rand.New(rand.NewPCG(seed, 2))
	c := newCorpus(seed)
	return &claimCorpus{rng: rng, names: c.words[:2000]}
}

func (c *claimCorpus) name() string { return c.names[c.rng.IntN(len(c.names))] }

func (c *claimCorpus) record() string {
	c.i++
	r := c.rng
	switch r.IntN(6) {
	case 0:
		return fmt.Sprintf("The %s service of %s runs on %s-%d.internal port %d", c.name(), c.name(), c.name(), c.i%997, 1024+r.IntN(60000))
	case 1:
		return fmt.Sprintf("%s %s's birthday is on month %d day %d", c.name(), c.name(), 1+r.IntN(12), 1+r.IntN(28))
	case 2:
		return fmt.Sprintf("The nightly backup of %s runs every %d hours to bucket bk-%d", c.name(), 1+r.IntN(24), c.i)
	case 3:
		return fmt.Sprintf("%s's %s has serial number SN%06d", c.name(), c.name(), r.IntN(1000000))
	case 4:
		return fmt.Sprintf("Release %d.%d.%d of %s shipped on 2026-%02d-%02d after fixing commit %08x", 1+r.IntN(9), r.IntN(30), r.IntN(20), c.name(), 1+r.IntN(12), 1+r.IntN(28), r.Uint32())
	}
	return fmt.Sprintf("%s prefers %s with %s in the %s at the %s", c.name(), c.name(), c.name(), c.name(), c.name())
}

// restoreCorpora are the two 100,000-record vaults the restore benchmark
// decodes: prose-like (bench100k's Zipf records, about 35 words each) and
// claim-like (short, most terms rare).
func restoreCorpora() []struct {
	name string
	x    *Index
} {
	claims := newClaimCorpus(3)
	y := New()
	for i := range 100000 {
		y.Add(uint32(i), claims.record())
	}
	x, _ := bench100k()
	return []struct {
		name string
		x    *Index
	}{{"zipf", x}, {"claims", y}}
}

// BenchmarkRestore100k decodes a 100,000-record snapshot, as an open does:
// ns/op is the CPU of the restore (it runs beside the rest of the open),
// heapMB the live heap the restored index holds and B/doc the same per
// record, measured after a GC; queryMB is the heap once a first query
// (with a misspelt word, so it needs everything) has been answered.
// firstquery is that first query on a freshly restored index: what a
// restore leaves for later, it pays.
func BenchmarkRestore100k(b *testing.B) {
	for _, c := range restoreCorpora() {
		data, err := c.x.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			var y *Index
			for b.Loop() {
				y = New()
				if err := y.UnmarshalBinary(data); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			restored, queried := restoredHeap(b, data)
			b.ReportMetric(float64(restored)/(1<<20), "heapMB")
			b.ReportMetric(float64(restored)/float64(y.Len()), "B/doc")
			b.ReportMetric(float64(queried)/(1<<20), "queryMB")
			b.ReportMetric(float64(y.VocabularySize()), "terms")
		})
		b.Run(c.name+"/firstquery", func(b *testing.B) {
			q := "misspeltword"
			for b.Loop() {
				b.StopTimer()
				y := New()
				if err := y.UnmarshalBinary(data); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				benchSink += y.Search(q).Len()
			}
		})
	}
}

// restoredHeap is the heap a restored index of data holds once the
// garbage collector has run, and the same after its first query.
func restoredHeap(b *testing.B, data []byte) (restored, queried uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	y := New()
	if err := y.UnmarshalBinary(data); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	restored = after.HeapInuse - min(after.HeapInuse, before.HeapInuse)
	benchSink += y.Search("misspeltword of the").Len()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(y)
	return restored, after.HeapInuse - min(after.HeapInuse, before.HeapInuse)
}

// BenchmarkSearchRestored100k is BenchmarkSearch100k's engine-shaped query
// (search, pool of 200, ranks of 400 records) on restored indexes, which
// is what an opened vault searches: after its first query, a restored
// index must answer as fast as one built by Add.
func BenchmarkSearchRestored100k(b *testing.B) {
	claims := newClaimCorpus(5)
	for _, c := range restoreCorpora() {
		data, _ := c.x.MarshalBinary()
		x := New()
		if err := x.UnmarshalBinary(data); err != nil {
			b.Fatal(err)
		}
		_, z := bench100k()
		queries := make([]string, 1000)
		for i := range queries {
			switch i % 4 {
			case 0:
				queries[i] = z.query(2)
			case 1:
				queries[i] = z.query(8)
			case 2:
				queries[i] = claims.record()
			default:
				queries[i] = "what did " + claims.name() + " say about the nightly backup"
			}
		}
		x.Search(queries[0] + " misspeltword") // the first query builds what it needs
		b.Run(c.name, func(b *testing.B) {
			searchAsHybrid(b, x, queries)
		})
	}
}

// searchAsHybrid runs the queries in turn as hybrid search uses the
// literal channel: the top 200 hits, then every hit of those and of 200
// records the vector pool brought (any, hits or not).
func searchAsHybrid(b *testing.B, x *Index, queries []string) {
	b.ReportAllocs()
	i := 0
	docs := make([]uint32, 0, 400)
	for b.Loop() {
		r := x.Search(queries[i%len(queries)])
		docs = docs[:0]
		for _, h := range r.Top(200) {
			docs = append(docs, h.Doc)
		}
		for j := range 200 {
			docs = append(docs, uint32((i*7919+j*104729)%100000))
		}
		slices.Sort(docs)
		docs = slices.Compact(docs)
		benchSink += len(r.FindAll(docs))
		r.Release()
		i++
	}
}
