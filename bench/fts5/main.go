// Command fts5 prepares and runs compartment's side of the literal-search
// comparison with SQLite FTS5 (bench/fts5/run.sh drives both sides).
//
// From the LongMemEval file it builds record corpora (user turns first,
// then assistant-turn paragraphs, de-duplicated, in a fixed shuffled
// order, so the 20,000-record corpus is a prefix of the 100,000 one) and
// 1,000 queries: every question in the file, then 3-to-8-word spans of
// random records. It writes, per size, corpus_<n>.jsonl and
// queries_<n>.jsonl (each query with the FTS5 MATCH expressions that
// mirror what our channel does: AND of the query's words, then OR over
// the words our index of that size finds informative; the words our
// channel drops as framing are left out of both), then
// times our literal channel on every query and writes ours_<n>.json.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/compartment/compartment/bench"
	"github.com/compartment/compartment/fts"
	"github.com/compartment/compartment/internal/search"
	"github.com/compartment/compartment/rank"
)

func main() {
	data := flag.String("data", "../shared/data/longmemeval_s_dev.json.gz", "LongMemEval file (JSON array, optionally gzip)")
	out := flag.String("out", ".cache/fts5-bench", "output directory")
	sizes := flag.String("sizes", "20000,100000", "corpus sizes")
	nq := flag.Int("queries", 1000, "number of queries")
	passes := flag.Int("passes", 3, "timed passes over the queries (after one warm-up); the fastest pass per query counts")
	flag.Parse()
	if err := run(*data, *out, *sizes, *nq, *passes); err != nil {
		fmt.Fprintln(os.Stderr, "fts5:", err)
		os.Exit(1)
	}
}

func run(data, out, sizeList string, nq, passes int) error {
	var sizes []int
	for _, s := range strings.Split(sizeList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return fmt.Errorf("bad size %q", s)
		}
		sizes = append(sizes, n)
	}
	records, questions, err := load(data)
	if err != nil {
		return err
	}
	if len(records) < slices.Max(sizes) {
		return fmt.Errorf("%s has %d distinct records, fewer than %d", data, len(records), slices.Max(sizes))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	queries := makeQueries(records[:sizes[0]], questions, nq)
	for _, n := range sizes {
		if err := writeJSONL(filepath.Join(out, fmt.Sprintf("corpus_%d.jsonl", n)), records[:n]); err != nil {
			return err
		}
		res, exprs := measure(records[:n], queries, passes)
		if err := writeQueries(filepath.Join(out, fmt.Sprintf("queries_%d.jsonl", n)), queries, exprs); err != nil {
			return err
		}
		b, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(filepath.Join(out, fmt.Sprintf("ours_%d.json", n)), b, 0o644); err != nil {
			return err
		}
		fmt.Printf("ours  %6d records: channel p50 %.3f ms p95 %.3f ms | engine (literal, relevance cut) p50 %.3f ms p95 %.3f ms | %d queries, mean %.0f hits\n",
			n, res.ChannelP50, res.ChannelP95, res.EngineP50, res.EngineP95, len(queries), res.MeanHits)
	}
	return nil
}

// load reads the distinct user turns, then the distinct assistant-turn
// paragraphs, each shuffled with a fixed seed, and the questions.
func load(path string) ([]string, []string, error) {
	seen := map[string]bool{}
	var user, assistant, questions []string
	add := func(list *[]string, s string) {
		s = strings.TrimSpace(s)
		if len(s) > 2000 {
			s = s[:2000]
		}
		if len(s) >= 10 && !seen[s] {
			seen[s] = true
			*list = append(*list, s)
		}
	}
	err := bench.ReadLongMemEval(path, func(inst bench.LMEInstance) (bool, error) {
		questions = append(questions, inst.Question)
		for _, s := range inst.Sessions {
			for _, t := range s {
				if t.Role == "user" {
					add(&user, t.Content)
					continue
				}
				for _, p := range strings.Split(t.Content, "\n\n") {
					add(&assistant, p)
				}
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(user), func(i, j int) { user[i], user[j] = user[j], user[i] })
	rng.Shuffle(len(assistant), func(i, j int) { assistant[i], assistant[j] = assistant[j], assistant[i] })
	return append(user, assistant...), questions, nil
}

// makeQueries takes every question, then fills up with 3-to-8-word spans
// of random records (known-item searches).
func makeQueries(records, questions []string, n int) []string {
	qs := slices.Clone(questions[:min(n, len(questions))])
	rng := rand.New(rand.NewPCG(3, 4))
	for len(qs) < n {
		words := strings.Fields(records[rng.IntN(len(records))])
		if len(words) < 3 {
			continue
		}
		k := 3 + rng.IntN(6)
		start := rng.IntN(max(1, len(words)-k))
		qs = append(qs, strings.Join(words[start:min(len(words), start+k)], " "))
	}
	return qs
}

// result is our side's numbers for one corpus size.
type result struct {
	Records    int       `json:"records"`
	Queries    int       `json:"queries"`
	ChannelP50 float64   `json:"channel_p50_ms"`
	ChannelP95 float64   `json:"channel_p95_ms"`
	EngineP50  float64   `json:"engine_p50_ms"`
	EngineP95  float64   `json:"engine_p95_ms"`
	MeanHits   float64   `json:"mean_hits"`
	ChannelMS  []float64 `json:"channel_ms"`
}

// measure indexes the records and times every query twice over: the
// literal channel as the engine calls it (fts Search and the 200-record
// pool) and the whole literal-only engine search (fusion, priors,
// relevance cut). It also returns each query's FTS5 expressions.
func measure(records, queries []string, passes int) (result, []ftsExprs) {
	x := fts.New()
	eng := search.New(0)
	for i, r := range records {
		x.Add(uint32(i), r)
		_ = eng.Add(uint32(i), r, nil, search.DocMeta{Seq: uint64(i), Importance: 0.5})
	}
	exprs := make([]ftsExprs, len(queries))
	hits := 0
	for i, q := range queries {
		exprs[i] = expressions(x, q)
		hits += x.Search(q).Len()
	}
	channel := timeQueries(queries, passes, func(q string) { x.Search(q).Top(rank.PoolSize) })
	engine := timeQueries(queries, passes, func(q string) { _, _ = eng.Search(search.Query{Text: q}) })
	return result{
		Records: len(records), Queries: len(queries),
		ChannelP50: pct(channel, 0.50), ChannelP95: pct(channel, 0.95),
		EngineP50: pct(engine, 0.50), EngineP95: pct(engine, 0.95),
		MeanHits:  float64(hits) / float64(len(queries)),
		ChannelMS: channel,
	}, exprs
}

// timeQueries runs one warm-up pass, then passes timed passes, and keeps
// each query's fastest time in milliseconds (the machine is shared; the
// minimum is the least disturbed reading).
func timeQueries(queries []string, passes int, fn func(string)) []float64 {
	for _, q := range queries {
		fn(q)
	}
	best := make([]float64, len(queries))
	for p := range max(passes, 1) {
		for i, q := range queries {
			start := time.Now()
			fn(q)
			ms := float64(time.Since(start)) / float64(time.Millisecond)
			if p == 0 || ms < best[i] {
				best[i] = ms
			}
		}
	}
	return best
}

func pct(ms []float64, p float64) float64 {
	s := slices.Clone(ms)
	slices.Sort(s)
	i := int(p*float64(len(s))+0.999999) - 1
	return s[max(i, 0)]
}

// ftsExprs are the FTS5 MATCH expressions mirroring our channel for one
// query: every word (AND), then OR over the words our index finds
// informative (empty: none). The phrases our channel drops as framing
// ("two weeks ago") are dropped here too.
type ftsExprs struct {
	And string `json:"and"`
	Or  string `json:"or"`
}

func expressions(x *fts.Index, q string) ftsExprs {
	r := x.Search(q)
	for _, f := range r.Framing {
		q = strings.Replace(q, f, " ", 1)
	}
	informative := map[string]bool{}
	for _, t := range r.Terms {
		informative[t.Text] = t.Informative && t.DF > 0
	}
	var and, or []string
	seen := map[string]bool{}
	for _, w := range fts5Words(q) {
		if seen[w] {
			continue
		}
		seen[w] = true
		quoted := `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
		and = append(and, quoted)
		if informative[w] {
			or = append(or, quoted)
		}
	}
	return ftsExprs{And: strings.Join(and, " "), Or: strings.Join(or, " OR ")}
}

// fts5Words cuts a query the way FTS5's unicode61 tokenizer does: runs
// of letters and digits, lower-cased.
func fts5Words(q string) []string {
	return strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && !isSpaceOrPunct(r))
	})
}

func isSpaceOrPunct(r rune) bool {
	return strings.ContainsRune("\u00a0\u2018\u2019\u201c\u201d\u2013\u2014\u2026", r)
}

func writeJSONL(path string, records []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, r := range records {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func writeQueries(path string, queries []string, exprs []ftsExprs) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i, q := range queries {
		if err := enc.Encode(map[string]string{"query": q, "and": exprs[i].And, "or": exprs[i].Or}); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
