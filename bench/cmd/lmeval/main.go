// Command lmeval is the static model's quick retrieval check on a
// LongMemEval file (evaluation only: nothing here trains). It ranks each
// question's haystack sessions (user turns joined) by the vector channel, a
// BM25 literal channel, and their fusion by the evidence formula of
// DESIGN.md, and prints session recall_any@k and ndcg_any@k.
//
// The product's own hybrid engine and harness live in internal/search and
// bench/; this tool exists so the model can be tuned before they land.
package main

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/compartment/compartment/bench"
	"github.com/compartment/compartment/embed"
)

func main() {
	data := flag.String("data", "../shared/data/longmemeval_s_dev.json.gz", "LongMemEval json.gz")
	model := flag.String("model", "embed/model/static-v1.bin", "static model file")
	harness := flag.Bool("harness", false, "run the product's harness (bench.RunLongMemEval) literal-only and hybrid instead")
	claims := flag.String("claims", "", "instead: the vector channel alone on this claims file (memories ranked by cosine)")
	flag.BoolVar(&printRanks, "ranks", false, "with -claims: print each question's best gold rank")
	flag.Parse()
	log.SetFlags(0)
	b, err := os.ReadFile(*model)
	if err != nil {
		log.Fatal(err)
	}
	// The calibration written beside the model file by `make model`.
	calFile, err := os.ReadFile(strings.TrimSuffix(*model, ".bin") + ".calibration.json")
	if err != nil {
		log.Fatal(err)
	}
	cal, err := embed.ParseStaticCalibration(calFile, sha256.Sum256(b))
	if err != nil {
		log.Fatal(err)
	}
	enc, err := embed.OpenStaticBytes(b, "eval", sha256.Sum256(b), cal)
	if err != nil {
		log.Fatal(err)
	}
	if *claims != "" {
		runClaims(*claims, enc)
		return
	}
	insts, err := load(*data)
	if err != nil {
		log.Fatal(err)
	}
	if *harness {
		runHarness(*data, enc)
		return
	}
	if *turns {
		runTurns(insts, enc)
		return
	}
	run(insts, enc)
}

// runHarness prints the product's own LongMemEval evaluation, literal-only
// then hybrid with the given encoder.
func runHarness(path string, enc embed.Encoder) {
	for _, e := range []embed.Encoder{nil, enc} {
		r, err := bench.RunLongMemEval(bench.LMEOptions{Path: path, Encoder: e}, nil)
		if err != nil {
			log.Fatal(err)
		}
		if err := r.WriteText(os.Stdout); err != nil {
			log.Fatal(err)
		}
	}
}

// load reads every question of a LongMemEval file.
func load(path string) ([]bench.LMEInstance, error) {
	var out []bench.LMEInstance
	return out, bench.ReadLongMemEval(path, func(in bench.LMEInstance) (bool, error) {
		out = append(out, in)
		return true, nil
	})
}

var ks = []int{1, 3, 5, 10}

type tally struct {
	recall, ndcg map[int]float64
	n            int
}

func newTally() *tally { return &tally{recall: map[int]float64{}, ndcg: map[int]float64{}} }

func (t *tally) add(order []int, gold map[int]bool) {
	t.n++
	for _, k := range ks {
		var dcg, idcg float64
		hit := false
		for r := 0; r < k && r < len(order); r++ {
			if gold[order[r]] {
				hit = true
				dcg += 1 / math.Log2(float64(r+2))
			}
		}
		for r := 0; r < k && r < len(gold); r++ {
			idcg += 1 / math.Log2(float64(r+2))
		}
		if hit {
			t.recall[k]++
		}
		t.ndcg[k] += dcg / idcg
	}
}

func (t *tally) String() string {
	var s strings.Builder
	for _, k := range ks {
		fmt.Fprintf(&s, " R@%d=%.3f", k, t.recall[k]/float64(t.n))
	}
	for _, k := range ks {
		fmt.Fprintf(&s, " nDCG@%d=%.3f", k, t.ndcg[k]/float64(t.n))
	}
	return s.String()
}

func run(insts []bench.LMEInstance, enc embed.Encoder) {
	vec, lex, hyb := newTally(), newTally(), newTally()
	slex, shyb := newTally(), newTally()
	var goldCos, allCos float64
	var nGold, nAll int
	for _, in := range insts {
		if strings.HasSuffix(in.QuestionID, "_abs") {
			continue
		}
		docs := make([]string, len(in.Sessions))
		gold := map[int]bool{}
		for i, s := range in.Sessions {
			var parts []string
			answer := false
			for _, t := range s {
				if t.Role == "user" {
					parts = append(parts, t.Content)
					answer = answer || t.HasAnswer
				}
			}
			docs[i] = strings.Join(parts, "\n")
			if answer && strings.Contains(in.SessionIDs[i], "answer") {
				gold[i] = true
			}
		}
		if len(gold) == 0 {
			continue
		}
		cos := vectorCosines(enc, in.Question, docs)
		for i := range cos {
			allCos += cos[i]
			nAll++
			if gold[i] {
				goldCos += cos[i]
				nGold++
			}
		}
		bm, plex := literal(in.Question, docs)
		vOrder := rankBy(cos)
		lOrder := rankBy(bm)
		vec.add(vOrder, gold)
		lex.add(lOrder, gold)
		hyb.add(rankBy(fuse(cos, plex, vOrder, lOrder)), gold)
		sp, sOrder := specLiteral(in.Question, docs)
		slex.add(sOrder, gold)
		hOrder := rankBy(fuse(cos, sp, vOrder, sOrder))
		shyb.add(hOrder, gold)
		if *verbose {
			fmt.Printf("%s\t%s\tlit %d\tvec %d\thyb %d\t%s\n", in.QuestionID, in.QuestionType, bestRank(sOrder, gold), bestRank(vOrder, gold), bestRank(hOrder, gold), in.Question)
		}
	}
	fmt.Printf("questions %d  mean cos gold %.3f all %.3f\n", vec.n, goldCos/float64(nGold), allCos/float64(nAll))
	fmt.Printf("vector :%s\nbm25   :%s\nbm25+v :%s\n", vec, lex, hyb)
	fmt.Printf("literal:%s\nhybrid :%s\n", slex, shyb)
}

var (
	verbose = flag.Bool("v", false, "print each question's best gold rank per channel")
	turns   = flag.Bool("turns", false, "the vector channel alone at turn level: every user turn a document, the turns with has_answer gold")
)

// vectorCosines is each doc's best window cosine with the query.
func vectorCosines(enc embed.Encoder, query string, docs []string) []float64 {
	q, _ := enc.EmbedQuery(query)
	embs, _ := enc.EmbedDocuments(docs)
	cos := make([]float64, len(docs))
	for i, d := range embs {
		cos[i] = -1
		for _, v := range d.Vectors {
			cos[i] = math.Max(cos[i], dot(q, v))
		}
	}
	return cos
}

// vectorOrder ranks docs by their best window's cosine with the query.
func vectorOrder(enc embed.Encoder, query string, docs []string) []int {
	return rankBy(vectorCosines(enc, query, docs))
}

// runTurns prints the vector channel's turn-level recall: each user turn
// of the haystack is a document, and a turn marked has_answer is gold.
func runTurns(insts []bench.LMEInstance, enc embed.Encoder) {
	t := newTally()
	for _, in := range insts {
		if strings.HasSuffix(in.QuestionID, "_abs") {
			continue
		}
		var docs []string
		gold := map[int]bool{}
		for _, s := range in.Sessions {
			for _, turn := range s {
				if turn.Role == "user" {
					if turn.HasAnswer {
						gold[len(docs)] = true
					}
					docs = append(docs, turn.Content)
				}
			}
		}
		if len(gold) > 0 {
			t.add(vectorOrder(enc, in.Question, docs), gold)
		}
	}
	fmt.Printf("turns, questions %d\nvector :%s\n", t.n, t)
}

// runClaims prints the vector channel's recall on a claims file (its
// memories and questions; see the README's claims format), overall and
// per question type.
var printRanks bool

func runClaims(path string, enc embed.Encoder) {
	raw, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	var f struct {
		Memories []struct {
			ID, Text string
		}
		Questions []struct {
			Q      string
			Expect []string
			Type   string
		}
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		log.Fatal(err)
	}
	docs := make([]string, len(f.Memories))
	id := map[string]int{}
	for i, m := range f.Memories {
		docs[i], id[m.ID] = m.Text, i
	}
	all, byType := newTally(), map[string]*tally{}
	for _, q := range f.Questions {
		gold := map[int]bool{}
		for _, e := range q.Expect {
			if i, ok := id[e]; ok {
				gold[i] = true
			}
		}
		if len(gold) == 0 {
			continue
		}
		order := vectorOrder(enc, q.Q, docs)
		if printRanks {
			fmt.Printf("rank %3d  %-10s %s\n", bestRank(order, gold), q.Type, q.Q)
		}
		all.add(order, gold)
		if byType[q.Type] == nil {
			byType[q.Type] = newTally()
		}
		byType[q.Type].add(order, gold)
	}
	fmt.Printf("claims vector channel, questions %d\nall        :%s\n", all.n, all)
	types := make([]string, 0, len(byType))
	for k := range byType {
		types = append(types, k)
	}
	sort.Strings(types)
	for _, k := range types {
		fmt.Printf("%-11s:%s\n", k, byType[k])
	}
}

func bestRank(order []int, gold map[int]bool) int {
	for r, i := range order {
		if gold[i] {
			return r + 1
		}
	}
	return len(order) + 1
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func rankBy(score []float64) []int {
	order := make([]int, len(score))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return score[order[a]] > score[order[b]] })
	return order
}

// literal returns BM25 scores and the self-information coverage p_lex of
// each document for the query.
func literal(query string, docs []string) (bm, plex []float64) {
	tf := make([]map[string]int, len(docs))
	df := map[string]int{}
	var avg float64
	lens := make([]float64, len(docs))
	for i, d := range docs {
		tf[i] = map[string]int{}
		for _, w := range embed.StaticWords(d) {
			tf[i][w]++
		}
		for w := range tf[i] {
			df[w]++
		}
		lens[i] = float64(len(embed.StaticWords(d)))
		avg += lens[i]
	}
	avg /= float64(len(docs))
	n := float64(len(docs))
	terms := map[string]bool{}
	for _, w := range embed.StaticWords(query) {
		terms[w] = true
	}
	bm = make([]float64, len(docs))
	plex = make([]float64, len(docs))
	for i := range docs {
		var have, all float64
		for t := range terms {
			info := math.Max(0, math.Log(n/(1+float64(df[t]))))
			all += info
			f := float64(tf[i][t])
			if f > 0 {
				have += info
				idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
				bm[i] += idf * f * 2.2 / (f + 1.2*(0.25+0.75*lens[i]/avg))
			}
		}
		if all > 0 {
			plex[i] = math.Min(have/all, 0.999)
		}
	}
	return bm, plex
}

// specLiteral is the literal channel as the spec describes it: documents
// holding every query term (AND); if none, those holding any informative
// term (df ≤ 10% of N); ranked by p_lex. Unmatched documents get p_lex 0
// and come after, in input order.
func specLiteral(query string, docs []string) (plex []float64, order []int) {
	n := len(docs)
	sets := make([]map[string]bool, n)
	df := map[string]int{}
	for i, d := range docs {
		sets[i] = map[string]bool{}
		for _, w := range embed.StaticWords(d) {
			sets[i][w] = true
		}
		for w := range sets[i] {
			df[w]++
		}
	}
	var terms []string
	seen := map[string]bool{}
	for _, w := range embed.StaticWords(query) {
		if !seen[w] {
			seen[w] = true
			terms = append(terms, w)
		}
	}
	info := func(t string) float64 { return math.Max(0, math.Log(float64(n)/(1+float64(df[t])))) }
	var all float64
	for _, t := range terms {
		all += info(t)
	}
	plex = make([]float64, n)
	match := func(i int, ts []string) (bool, bool) {
		anyHit, allHit := false, true
		for _, t := range ts {
			if sets[i][t] {
				anyHit = true
			} else {
				allHit = false
			}
		}
		return anyHit, allHit
	}
	var hits []int
	for i := range docs {
		if _, allHit := match(i, terms); allHit && len(terms) > 0 {
			hits = append(hits, i)
		}
	}
	if len(hits) == 0 {
		var informative []string
		for _, t := range terms {
			if df[t] <= max(1, n/10) {
				informative = append(informative, t)
			}
		}
		for i := range docs {
			if anyHit, _ := match(i, informative); anyHit {
				hits = append(hits, i)
			}
		}
	}
	score := make([]float64, n)
	for i := range score {
		score[i] = -1
	}
	for _, i := range hits {
		var have float64
		for _, t := range terms {
			if sets[i][t] {
				have += info(t)
			}
		}
		if all > 0 {
			plex[i] = math.Min(have/all, 0.999)
		}
		score[i] = plex[i]
	}
	return plex, rankBy(score)
}

// fuse is the evidence formula of DESIGN.md (no priors).
func fuse(cos, plex []float64, vOrder, lOrder []int) []float64 {
	rv := make([]int, len(cos))
	rl := make([]int, len(cos))
	for r, i := range vOrder {
		rv[i] = r + 1
	}
	for r, i := range lOrder {
		rl[i] = r + 1
	}
	out := make([]float64, len(cos))
	for i := range cos {
		pv := math.Min(math.Max((cos[i]-0.25)/(0.85-0.25), 0), 0.88)
		out[i] = -0.75*math.Log(1-pv) - 0.25*math.Log(1-plex[i]) +
			0.10*20*(1/(20+float64(rv[i]))+1/(20+float64(rl[i])))
	}
	return out
}
