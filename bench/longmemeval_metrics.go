package bench

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/search"
	"github.com/compartment/compartment/rank"
)

// LMEKs are the cut-offs of the official evaluation.
var LMEKs = [...]int{1, 3, 5, 10, 30, 50}

// The three official metrics, in report order.
const (
	recallAny = iota
	recallAll
	ndcgAny
	numMetrics
)

var metricNames = [numMetrics]string{"recall_any", "recall_all", "ndcg_any"}

// LMEMetrics holds the official metrics at every cut-off, averaged over
// questions. It marshals as {"recall_any@1": …, …} in a fixed order.
type LMEMetrics struct {
	V [numMetrics][len(LMEKs)]float64
}

// Get returns a metric by its official name, e.g. "recall_any@5".
func (m LMEMetrics) Get(name string) (float64, bool) {
	metric, kStr, ok := strings.Cut(name, "@")
	k, err := strconv.Atoi(kStr)
	mi, ki := slices.Index(metricNames[:], metric), slices.Index(LMEKs[:], k)
	if !ok || err != nil || mi < 0 || ki < 0 {
		return 0, false
	}
	return m.V[mi][ki], true
}

// MarshalJSON writes the metrics as one flat object, metric by metric,
// k ascending.
func (m LMEMetrics) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for mi, name := range metricNames {
		for ki, k := range LMEKs {
			if mi+ki > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:%s", fmt.Sprintf("%s@%d", name, k), strconv.FormatFloat(round4(m.V[mi][ki]), 'f', -1, 64))
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// LMETypeReport is the breakdown for one question type.
type LMETypeReport struct {
	Questions int        `json:"questions"`
	Session   LMEMetrics `json:"session"`
	Turn      LMEMetrics `json:"turn"`
}

// LMELatency is the query latency (query embedding included when the
// semantic channel is on), in milliseconds.
type LMELatency struct {
	P50     float64 `json:"p50"`
	P95     float64 `json:"p95"`
	Queries int     `json:"queries"`
}

// LMEReport is the result of a LongMemEval run. Its JSON is the object
// `compartment bench --longmemeval --json` prints.
type LMEReport struct {
	Questions int    `json:"questions"`
	Channels  string `json:"channels"` // "literal" or "hybrid"
	Encoder   string `json:"encoder,omitempty"`
	// Session: whole sessions as documents (official session granularity).
	Session LMEMetrics `json:"session"`
	// Turn: user turns as documents (official turn granularity).
	Turn LMEMetrics `json:"turn"`
	// SessionFromTurns: the turn ranking read at session level (a session
	// scores as its best turn), as the official turn run also reports.
	SessionFromTurns LMEMetrics               `json:"session_from_turns"`
	ByType           map[string]LMETypeReport `json:"by_type"`
	LatencyMS        LMELatency               `json:"latency_ms"`
	// NoGold counts questions whose evidence is only in assistant turns:
	// with user turns indexed they have no gold document, and the official
	// averaging counts them as recall_any 0, recall_all 1, ndcg 0, which
	// caps recall_any at 1 − NoGold/Questions.
	NoGold int `json:"no_gold"`
	// Answerable is the same run averaged over the questions that have a
	// gold document. Published figures can only be compared on this
	// basis: a hybrid reported at 0.95 is above what recall_any over all
	// questions can reach when a tenth of them have no gold.
	Answerable LMETypeReport `json:"answerable"`
	// Peer is the same run under the peer convention for the gold (what
	// MemPalace, ai-memory and agentmemory publish): every answer session
	// is gold, including those none of whose user turns has has_answer
	// (the official run renames them "noans"); at turn level every user
	// turn of an answer session is gold.
	Peer LMEPeer `json:"peer"`
	// Reference is LongMemEval's own BM25 retriever on the same questions.
	Reference LMEReference `json:"reference_bm25"`
	// Cut is how the relevance cut (a search without top_k) behaves.
	Cut LMECut `json:"relevance_cut"`
	// AbstentionSkipped counts the _abs questions, skipped as officially.
	AbstentionSkipped int `json:"abstention_skipped"`
}

// LMEPeer holds the peer-convention metrics, averaged over every
// question.
type LMEPeer struct {
	Session LMEMetrics `json:"session"`
	Turn    LMEMetrics `json:"turn"`
}

// LMEReference is the official flat-bm25 retriever's result on the run's
// questions (see referenceRanking).
type LMEReference struct {
	Retriever  string        `json:"retriever"`
	Session    LMEMetrics    `json:"session"`
	Turn       LMEMetrics    `json:"turn"`
	Answerable LMETypeReport `json:"answerable"`
}

// LMECut measures the relevance cut, the answer to a search without
// top_k, at turn level (a user turn is the closest thing in LongMemEval
// to one memory). The question asked of its own haystack should bring
// back an evidence turn; the previous question, about someone else's
// history, should bring back nothing.
type LMECut struct {
	// Questions with a gold turn, and the share of them whose cut held at
	// least one gold turn.
	Questions int     `json:"questions"`
	Answered  float64 `json:"answered"`
	// Returned is the mean number of turns the cut kept; Empty the share
	// of questions for which it kept none.
	Returned float64 `json:"returned_mean"`
	Empty    float64 `json:"empty"`
	// Unrelated: questions asked of the next question's haystack.
	Unrelated         int     `json:"unrelated"`
	UnrelatedEmpty    float64 `json:"unrelated_empty"`
	UnrelatedReturned float64 `json:"unrelated_returned_mean"`
	// AnsweredConfident is the share of questions whose cut held a gold
	// turn labelled strong or likely; UnrelatedNoConfident the share of
	// unrelated questions with no strong or likely result (what an agent
	// that trusts the labels lives with).
	AnsweredConfident    float64 `json:"answered_confident"`
	UnrelatedNoConfident float64 `json:"unrelated_no_confident"`
}

type cutSums struct {
	questions, answered, returned, empty         int
	unrelated, unrelatedEmpty, unrelatedReturned int
	answeredConfident, unrelatedCalm             int
}

// confident reports whether a result is labelled strong or likely.
func confident(r search.Result) bool {
	return r.Match == rank.MatchStrong || r.Match == rank.MatchLikely
}

// add asks the turn engine the question (counted when it has a gold
// turn) and the previous, unrelated one (when there is one).
func (s *cutSums) add(eng *search.Engine, c lmeCorpus, question string, qvec []float32, other string, otherVec []float32) error {
	if gold := c.gold(); len(gold) > 0 {
		res, err := eng.Search(search.Query{Text: question, Vector: qvec, RecordText: c.text})
		if err != nil {
			return err
		}
		s.questions++
		count(res, &s.returned, &s.empty)
		if slices.ContainsFunc(res, func(r search.Result) bool { return gold[c.ids[r.Doc]] }) {
			s.answered++
		}
		if slices.ContainsFunc(res, func(r search.Result) bool { return gold[c.ids[r.Doc]] && confident(r) }) {
			s.answeredConfident++
		}
	}
	if other == "" {
		return nil
	}
	res, err := eng.Search(search.Query{Text: other, Vector: otherVec, RecordText: c.text})
	if err != nil {
		return err
	}
	s.unrelated++
	count(res, &s.unrelatedReturned, &s.unrelatedEmpty)
	if !slices.ContainsFunc(res, confident) {
		s.unrelatedCalm++
	}
	return nil
}

// text is a turn's words, what the answer's confidence reads of a result
// as the vault gives it a record's (search.Query.RecordText).
func (c lmeCorpus) text(doc uint32) string {
	if int64(doc) >= int64(len(c.texts)) {
		return ""
	}
	return c.texts[doc]
}

// count adds a cut's results to returned, and one to empty when there
// were none.
func count(res []search.Result, returned, empty *int) {
	*returned += len(res)
	if len(res) == 0 {
		*empty++
	}
}

func (s cutSums) report() LMECut {
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return round4(float64(a) / float64(b))
	}
	return LMECut{
		Questions: s.questions, Answered: ratio(s.answered, s.questions),
		Returned: ratio(s.returned, s.questions), Empty: ratio(s.empty, s.questions),
		Unrelated: s.unrelated, UnrelatedEmpty: ratio(s.unrelatedEmpty, s.unrelated),
		UnrelatedReturned: ratio(s.unrelatedReturned, s.unrelated),
		AnsweredConfident: ratio(s.answeredConfident, s.questions), UnrelatedNoConfident: ratio(s.unrelatedCalm, s.unrelated),
	}
}

// lmeSums accumulates per-question metrics for one population.
type lmeSums struct {
	n                       int
	session, turn, fromTurn metricSums
}

type metricSums [numMetrics][len(LMEKs)]float64

func (s *lmeSums) add(session, turn, fromTurn [numMetrics][len(LMEKs)]float64) {
	s.n++
	for m := range numMetrics {
		for k := range LMEKs {
			s.session[m][k] += session[m][k]
			s.turn[m][k] += turn[m][k]
			s.fromTurn[m][k] += fromTurn[m][k]
		}
	}
}

func (s *lmeSums) averages(v metricSums) LMEMetrics {
	var out LMEMetrics
	if s.n == 0 {
		return out
	}
	for m := range numMetrics {
		for k := range LMEKs {
			out.V[m][k] = v[m][k] / float64(s.n)
		}
	}
	return out
}

// lmeAccumulator collects a run.
type lmeAccumulator struct {
	enc     embed.Encoder
	n       int
	skipped int
	noGold  int
	all     lmeProgress
	sums    lmeSums
	gold    lmeSums // questions with a gold document
	ref     lmeSums // the reference retriever, all questions
	peer    lmeSums // the peer convention's gold, all questions
	cut     cutSums
	// prevQuestion is the previous question asked, with its vector: an
	// unrelated question for this one's haystack.
	prevQuestion string
	prevVec      []float32
	refGold      lmeSums // the reference retriever, questions with gold
	byType       map[string]*lmeSums
	latencies    []time.Duration
}

// lmeProgress is the running mean shown in progress lines.
type lmeProgress struct{ session runningMean }

type runningMean struct {
	sum [numMetrics][len(LMEKs)]float64
	n   int
}

func (r runningMean) mean(metric, k int) float64 {
	ki := slices.Index(LMEKs[:], k)
	if r.n == 0 || ki < 0 {
		return 0
	}
	return r.sum[metric][ki] / float64(r.n)
}

func newLMEAccumulator(enc embed.Encoder) *lmeAccumulator {
	return &lmeAccumulator{enc: enc, byType: map[string]*lmeSums{}}
}

// evaluate runs one question at both granularities and records it.
func (a *lmeAccumulator) evaluate(inst LMEInstance) error {
	var qvec []float32
	var embedTook time.Duration
	if a.enc != nil {
		start := time.Now()
		v, err := a.enc.EmbedQuery(inst.Question)
		if err != nil {
			return fmt.Errorf("embed question: %w", err)
		}
		qvec, embedTook = v, time.Since(start)
	}
	sc, tc := sessionCorpus(inst), turnCorpus(inst)
	sRank, sTook, err := rankCorpus(sc, inst.Question, a.enc, qvec)
	if err != nil {
		return fmt.Errorf("session level: %w", err)
	}
	tEng, err := indexCorpus(tc, a.enc)
	if err != nil {
		return fmt.Errorf("turn level: %w", err)
	}
	tRank, tTook, err := rankWith(tEng, len(tc.texts), inst.Question, qvec)
	if err != nil {
		return fmt.Errorf("turn level: %w", err)
	}
	if err := a.cut.add(tEng, tc, inst.Question, qvec, a.prevQuestion, a.prevVec); err != nil {
		return fmt.Errorf("relevance cut: %w", err)
	}
	a.prevQuestion, a.prevVec = inst.Question, qvec
	a.latencies = append(a.latencies, sTook+embedTook, tTook+embedTook)
	sGold, tGold := sc.gold(), tc.gold()
	if len(sGold) == 0 {
		a.noGold++
	}
	var session, turn, fromTurn, refSession, refTurn, peerSession, peerTurn metricSums
	sPeer, tPeer := sc.peerGold(), tc.peerGold()
	sRef, tRef := referenceRanking(sc, inst.Question), referenceRanking(tc, inst.Question)
	for ki, k := range LMEKs {
		session[recallAny][ki], session[recallAll][ki], session[ndcgAny][ki] = evaluateRetrieval(sRank, sGold, sc.ids, k)
		turn[recallAny][ki], turn[recallAll][ki], turn[ndcgAny][ki] = evaluateRetrieval(tRank, tGold, tc.ids, k)
		fromTurn[recallAny][ki], fromTurn[recallAll][ki], fromTurn[ndcgAny][ki] = evaluateTurnToSession(tRank, tGold, tc.ids, k)
		refSession[recallAny][ki], refSession[recallAll][ki], refSession[ndcgAny][ki] = evaluateRetrieval(sRef, sGold, sc.ids, k)
		refTurn[recallAny][ki], refTurn[recallAll][ki], refTurn[ndcgAny][ki] = evaluateRetrieval(tRef, tGold, tc.ids, k)
		peerSession[recallAny][ki], peerSession[recallAll][ki], peerSession[ndcgAny][ki] = evaluateRetrieval(sRank, sPeer, sc.ids, k)
		peerTurn[recallAny][ki], peerTurn[recallAll][ki], peerTurn[ndcgAny][ki] = evaluateRetrieval(tRank, tPeer, tc.ids, k)
	}
	a.n++
	a.sums.add(session, turn, fromTurn)
	a.ref.add(refSession, refTurn, metricSums{})
	a.peer.add(peerSession, peerTurn, metricSums{})
	if len(sGold) > 0 {
		a.gold.add(session, turn, fromTurn)
		a.refGold.add(refSession, refTurn, metricSums{})
	}
	ts := a.byType[inst.QuestionType]
	if ts == nil {
		ts = &lmeSums{}
		a.byType[inst.QuestionType] = ts
	}
	ts.add(session, turn, fromTurn)
	a.all.session.n++
	for m := range numMetrics {
		for ki := range LMEKs {
			a.all.session.sum[m][ki] += session[m][ki]
		}
	}
	return nil
}

func (a *lmeAccumulator) report() LMEReport {
	r := LMEReport{
		Questions:         a.n,
		Channels:          "literal",
		Session:           a.sums.averages(a.sums.session),
		Turn:              a.sums.averages(a.sums.turn),
		SessionFromTurns:  a.sums.averages(a.sums.fromTurn),
		ByType:            map[string]LMETypeReport{},
		NoGold:            a.noGold,
		AbstentionSkipped: a.skipped,
		LatencyMS:         latencyMS(a.latencies),
		Cut:               a.cut.report(),
		Peer:              LMEPeer{Session: a.peer.averages(a.peer.session), Turn: a.peer.averages(a.peer.turn)},
		Answerable: LMETypeReport{Questions: a.gold.n,
			Session: a.gold.averages(a.gold.session), Turn: a.gold.averages(a.gold.turn)},
		Reference: LMEReference{
			Retriever: "flat-bm25 (LongMemEval run_retrieval.py: BM25Okapi k1=1.5 b=0.75, split on spaces)",
			Session:   a.ref.averages(a.ref.session),
			Turn:      a.ref.averages(a.ref.turn),
			Answerable: LMETypeReport{Questions: a.refGold.n,
				Session: a.refGold.averages(a.refGold.session), Turn: a.refGold.averages(a.refGold.turn)},
		},
	}
	if a.enc != nil {
		r.Channels, r.Encoder = "hybrid", a.enc.Info().Name
	}
	for t, s := range a.byType {
		r.ByType[t] = LMETypeReport{Questions: s.n, Session: s.averages(s.session), Turn: s.averages(s.turn)}
	}
	return r
}

func latencyMS(ds []time.Duration) LMELatency {
	if len(ds) == 0 {
		return LMELatency{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	pct := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return round4(float64(s[max(i, 0)]) / float64(time.Millisecond))
	}
	return LMELatency{P50: pct(0.50), P95: pct(0.95), Queries: len(s)}
}

// evaluateRetrieval is the official metric for one question at cut-off
// k: recall_any (any gold id among the top k ids), recall_all (every gold
// id there: true when there is none) and NDCG with binary relevance over
// corpus positions.
func evaluateRetrieval(ranking []int, gold map[string]bool, ids []string, k int) (float64, float64, float64) {
	recalled := map[string]bool{}
	for _, i := range ranking[:min(k, len(ranking))] {
		recalled[ids[i]] = true
	}
	anyHit, allHit := false, true
	for g := range gold {
		anyHit = anyHit || recalled[g]
		allHit = allHit && recalled[g]
	}
	return b2f(anyHit), b2f(allHit), ndcg(ranking, gold, ids, k)
}

// ndcg is the official NDCG@k: relevance 1 for a corpus position whose id
// is gold, DCG = rel₁ + Σ_{i≥2} relᵢ/log₂(i), ideal from all positions.
func ndcg(ranking []int, gold map[string]bool, ids []string, k int) float64 {
	rel := make([]float64, len(ids))
	for i, id := range ids {
		if gold[id] {
			rel[i] = 1
		}
	}
	got := make([]float64, 0, k)
	for _, i := range ranking[:min(k, len(ranking))] {
		got = append(got, rel[i])
	}
	ideal := slices.Clone(rel)
	slices.SortFunc(ideal, func(a, b float64) int { return cmp.Compare(b, a) })
	idealDCG := dcg(ideal, k)
	if idealDCG == 0 {
		return 0
	}
	return dcg(got, k) / idealDCG
}

func dcg(rel []float64, k int) float64 {
	rel = rel[:min(k, len(rel))]
	if len(rel) == 0 {
		return 0
	}
	s := rel[0]
	for i := 1; i < len(rel); i++ {
		s += rel[i] / math.Log2(float64(i+1))
	}
	return s
}

// evaluateTurnToSession is the official turn-to-session reading: ids lose
// their turn suffix, and k grows until the top k turns cover k distinct
// sessions (or the corpus runs out).
func evaluateTurnToSession(ranking []int, gold map[string]bool, ids []string, k int) (float64, float64, float64) {
	strip := func(id string) string {
		if i := strings.LastIndexByte(id, '_'); i >= 0 {
			return id[:i]
		}
		return id
	}
	sgold := map[string]bool{}
	for g := range gold {
		sgold[strip(g)] = true
	}
	sids := make([]string, len(ids))
	for i, id := range ids {
		sids[i] = strip(id)
	}
	distinct := func(n int) int {
		seen := map[string]bool{}
		for _, i := range ranking[:min(n, len(ranking))] {
			seen[sids[i]] = true
		}
		return len(seen)
	}
	eff := k
	for eff <= len(sids) && distinct(eff) < k {
		eff++
	}
	return evaluateRetrieval(ranking, sgold, sids, eff)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// WriteJSON writes the report as one indented JSON object.
func (r LMEReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report as tables: every metric at every k for the
// session and turn levels, then session recall_any@5 and @10 per
// question type, then latency.
func (r LMEReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "LongMemEval retrieval: %d questions, %s channel", r.Questions, r.Channels)
	if r.Encoder != "" {
		fmt.Fprintf(tw, "s (%s)", r.Encoder)
	}
	fmt.Fprintf(tw, "; %d abstention skipped; %d without a gold user turn\n\n", r.AbstentionSkipped, r.NoGold)
	header := "level\tmetric\t"
	for _, k := range LMEKs {
		header += fmt.Sprintf("@%d\t", k)
	}
	fmt.Fprintln(tw, header)
	for _, lv := range []struct {
		name string
		m    LMEMetrics
	}{{"session", r.Session}, {"turn", r.Turn}, {"session<-turn", r.SessionFromTurns},
		{"peer session", r.Peer.Session}, {"peer turn", r.Peer.Turn}} {
		for mi, name := range metricNames {
			row := lv.name + "\t" + name + "\t"
			for ki := range LMEKs {
				row += fmt.Sprintf("%.3f\t", lv.m.V[mi][ki])
			}
			fmt.Fprintln(tw, row)
		}
	}
	fmt.Fprintf(tw, "\nrecall_any beside LongMemEval's own BM25 (flat-bm25) on the same questions;\n"+
		"answerable: the %d questions with a gold user turn, the basis published figures compare on\n", r.Answerable.Questions)
	fmt.Fprintln(tw, header)
	for _, lv := range []struct {
		name string
		m    LMEMetrics
	}{
		{"session", r.Session}, {"session flat-bm25", r.Reference.Session},
		{"answerable session", r.Answerable.Session}, {"answerable session flat-bm25", r.Reference.Answerable.Session},
		{"answerable turn", r.Answerable.Turn}, {"answerable turn flat-bm25", r.Reference.Answerable.Turn},
	} {
		row := lv.name + "\t" + metricNames[recallAny] + "\t"
		for ki := range LMEKs {
			row += fmt.Sprintf("%.3f\t", lv.m.V[recallAny][ki])
		}
		fmt.Fprintln(tw, row)
	}
	fmt.Fprintln(tw, "\nquestion type\tquestions\tsession any@5\tsession any@10\tturn any@10\t")
	types := make([]string, 0, len(r.ByType))
	for t := range r.ByType {
		types = append(types, t)
	}
	slices.Sort(types)
	ki5, ki10 := slices.Index(LMEKs[:], 5), slices.Index(LMEKs[:], 10)
	for _, t := range types {
		tr := r.ByType[t]
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t\n", t, tr.Questions,
			tr.Session.V[recallAny][ki5], tr.Session.V[recallAny][ki10], tr.Turn.V[recallAny][ki10])
	}
	c := r.Cut
	fmt.Fprintf(tw, "\nrelevance cut\t(no top_k, turn level)\t\n")
	fmt.Fprintf(tw, "own question\t%d asked\tgold kept %.3f (strong/likely %.3f)\tempty %.3f\tkept %.1f on average\t\n", c.Questions, c.Answered, c.AnsweredConfident, c.Empty, c.Returned)
	fmt.Fprintf(tw, "unrelated question\t%d asked\tno strong/likely %.3f\tempty %.3f\tkept %.1f on average\t\n", c.Unrelated, c.UnrelatedNoConfident, c.UnrelatedEmpty, c.UnrelatedReturned)
	fmt.Fprintf(tw, "\nquery latency\tp50 %.3f ms\tp95 %.3f ms\t(%d queries)\t\n", r.LatencyMS.P50, r.LatencyMS.P95, r.LatencyMS.Queries)
	return tw.Flush()
}
