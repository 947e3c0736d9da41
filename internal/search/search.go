package search

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/compartment/compartment/ann"
	"github.com/compartment/compartment/fts"
	"github.com/compartment/compartment/internal/lexicon"
	"github.com/compartment/compartment/rank"
)

// Query is one search.
type Query struct {
	// Text is what the user asked; it feeds the literal channel and must
	// not be empty.
	Text string
	// Vector is the embedded query (with the model's query prefix); nil
	// searches the literal channel only.
	Vector []float32
	// TopK > 0 returns exactly that many results (fewer only when fewer
	// records match at all); 0 returns the default answer (rank.Cut: at
	// most rank.DefaultResults, fewer where the scores fall away).
	TopK int
	// Namespaces is the searched population for the vault share; nil
	// means every namespace. It does not filter: use Filter for that.
	Namespaces []string
	// Filter, when set, keeps only the records it accepts. It runs after
	// ranking; when it leaves too few results the candidate pools widen.
	// It is called with the engine's read lock held, so it must not call
	// the engine.
	Filter func(doc uint32) bool
	// Now is the clock for opinion age; zero means time.Now().
	Now time.Time
	// Explain fills Result.Explain.
	Explain bool
	// RecordText returns a record's own words (its text without the
	// provenance clause), which the answer's confidence reads when the
	// question asks for a kind of answer they can be checked for
	// (rank.AnswerFactor); nil leaves that check out. It is called with
	// the engine's read lock held, for the answer's results only, so it
	// must not call the engine.
	RecordText func(doc uint32) string
}

// Result is one returned record.
type Result struct {
	Doc uint32
	// Score is the final score: aged evidence times the priors. It orders
	// the results.
	Score float64
	// Unaged is the evidence without aging or priors: what the relevance
	// cut's relative part read (its floor reads rank.Relevance).
	Unaged float64
	// Confidence is the probability that the record answers the query
	// (rank.Confidence), Match its label (rank.Match: strong, likely,
	// weak).
	Confidence float64
	Match      string
	Explain    *Explanation
}

// Explanation says why a record came back.
type Explanation struct {
	Cosine  float64 `json:"cosine"`   // best window's cosine (0 if not a semantic candidate)
	Window  int     `json:"window"`   // which window
	PVec    float64 `json:"p_vec"`    // r.e.cal.PVec(Cosine)
	RankVec int     `json:"rank_vec"` // 1-based; 0 = not found semantically
	// Reliability is the semantic channel's weight ρ for the query
	// (rank.SemanticReliability), Unseen the share of the query's
	// information in words the model has no vector for.
	Reliability float64 `json:"reliability"`
	Unseen      float64 `json:"unseen"`
	// Terms are the query terms the record matched, with I(t) each.
	Terms   []fts.TermMatch `json:"terms"`
	PLex    float64         `json:"p_lex"`
	RankLex int             `json:"rank_lex"` // 1-based; 0 = not found literally
	// Mode is how the record matched literally: "and" (every query
	// term), "or" (some informative term), "none".
	Mode string `json:"mode"`
	// Framing are the query's phrases the literal channel left out
	// ("two weeks ago", "I mentioned that").
	Framing []string `json:"framing,omitempty"`
	// Query are the query's terms with their document frequency and
	// I(t): what the literal evidence was measured against.
	Query []QueryTerm `json:"query_terms,omitempty"`
	Share float64     `json:"share"` // vault share q
	// Evidence is the aged evidence; Unaged is in Result.
	Evidence float64 `json:"evidence"`
	// ImportancePrior and OpinionPrior are the two terms of the
	// multiplier 1 + ImportancePrior + OpinionPrior.
	ImportancePrior float64 `json:"importance_prior"`
	OpinionPrior    float64 `json:"opinion_prior"`
	// ReferencePrior is the third term of the multiplier: rank.WReference
	// for a reference fact or pack record, 0 for the user's own.
	ReferencePrior float64 `json:"reference_prior,omitempty"`
	// Relevance is rank.Relevance, Lead the log ratio of the unaged score
	// to the best other candidate's (rank.Lead): what Confidence reads.
	Relevance float64 `json:"relevance"`
	Lead      float64 `json:"lead"`
	// Standout is rank.Standout: the log ratio of the (entity-weighed)
	// unaged score to the pool's 20th best candidate's (what Confidence
	// reads with Lead).
	Standout float64 `json:"standout"`
	// Rare: the record holds a query word at most rank.RareDF records
	// hold, which keeps it in the default answer.
	Rare bool `json:"rare,omitempty"`
	// Entity is rank.EntityFactor: below 1 when the query names an
	// entity this record does not hold.
	Entity float64 `json:"entity"`
	// Novel is rank.Novelty: the share of the query's information in
	// words no record holds (what Confidence reads beside PVec).
	Novel float64 `json:"novel"`
	// Rarest is rank.RarestShare: how far the record is about the
	// query's rarest word some record holds (what Confidence reads).
	Rarest float64 `json:"rarest"`
	// Asks is the kind of answer the query asks for (time, quantity,
	// span, money, identifier; empty: none the words can be checked
	// for), Lacks that the record holds no expression of it
	// (rank.AnswerFactor).
	Asks  string `json:"asks,omitempty"`
	Lacks bool   `json:"lacks,omitempty"`
}

// QueryTerm is one term of the query as the literal channel read it.
type QueryTerm struct {
	Term string  `json:"term"`
	DF   int     `json:"df"`
	Info float64 `json:"info"`
}

// candidate is a record either channel brought into the pool.
type candidate struct {
	doc              uint32
	cos              float64
	window           int
	vecSeen          bool // cos is known: the vector pool or completeCosines scored it
	rankVec, rankLex int
	lex              fts.Hit
	conclusive       bool // holds an identifier unique in the vault
	sig              rank.Signals
	evidence         float64
	imp, op, ref     float64
	entity           float64 // rank.EntityFactor
	scored           rank.Scored
}

// Search runs a query. An empty query is ErrEmptyQuery; a query that
// matches nothing returns no results and no error.
func (e *Engine) Search(q Query) ([]Result, error) {
	if !trimmed(q.Text) {
		return nil, ErrEmptyQuery
	}
	if q.TopK < 0 {
		return nil, fmt.Errorf("search: top_k %d is negative", q.TopK)
	}
	if q.Vector != nil && len(q.Vector) != e.dim {
		return nil, fmt.Errorf("search: query vector has %d dims, want %d: %w", len(q.Vector), e.dim, ErrDimension)
	}
	if q.Now.IsZero() {
		q.Now = time.Now()
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	semantic := q.Vector != nil && e.vec != nil && e.vec.Len() > 0
	// The first vector pool does not depend on the literal channel: on a
	// second core it is read while the postings are.
	var first *vecPool
	if semantic && concurrentChannels {
		first = searchVectors(e.vec, q.Vector, rank.PoolSize)
		defer first.wait() // never leave it running past the read lock
	}
	r := run{e: e, q: q, lex: e.lex.SearchWith(q.Text, fts.Options{Related: relativesOf(q.Text), RelatedWeight: rank.RelatedWeight}), first: first}
	// Nothing the results hold points into the literal result or the
	// candidates, so both go back to be reused by the next query.
	if reuseScratch {
		defer r.lex.Release()
		r.sc, _ = e.scratch.Get().(*gatherScratch)
		defer func() { e.scratch.Put(r.sc) }()
	}
	r.semantic = semantic
	r.unseen = r.unseenShare()
	r.entities, r.entityInfo, r.unknownNamed = r.namedTerms()
	r.novel = r.novelty()
	r.rarest = r.rarestTerms()
	if q.RecordText != nil {
		r.asks = askedKind(q.Text)
	}
	pool := rank.PoolSize
	for attempt := 0; ; attempt++ {
		cands := r.gather(pool)
		kept, picked := r.rank(cands)
		if attempt == rank.PoolWidenings || !r.widen(kept, picked) {
			return r.fill(r.results(kept, picked)), nil
		}
		pool *= rank.PoolGrowth
	}
}

// relativesOf returns the lexicon's relatives of a query term
// ([lexicon.Related]: "invitations" finds "invites" when no record says
// "invitation"), except for the words the query writes only with a
// capital or inside an identifier: the lexicon knows words, not names
// ("Mark", "Rust" and "go1.22" are no English words here).
func relativesOf(query string) func(string) []string {
	return func(term string) []string {
		if strings.ContainsFunc(term, func(c rune) bool { return !unicode.IsLetter(c) }) || !writtenAsWord(query, term) {
			return nil
		}
		return lexicon.Related(term)
	}
}

// writtenAsWord reports whether the query writes term, a lowercase word,
// as a word of its own in lowercase: not only with a capital ("Mark") or
// inside an identifier ("invitations2").
func writtenAsWord(query, term string) bool {
	for from := 0; ; {
		i := strings.Index(query[from:], term)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(term)
		before, _ := utf8.DecodeLastRuneInString(query[:start])
		after, _ := utf8.DecodeRuneInString(query[end:])
		if !wordRune(before) && !wordRune(after) {
			return true
		}
		from = start + 1
	}
}

func wordRune(c rune) bool { return c != utf8.RuneError && (unicode.IsLetter(c) || unicode.IsDigit(c)) }

// run is the state of one Search.
type run struct {
	e        *Engine
	q        Query
	lex      *fts.Result
	semantic bool
	lexBest  float64 // strongest p_lex among the candidates the filter keeps
	// entities marks the query terms that name an entity some record
	// holds ([namedTerms]); entityInfo is their Σ I(t).
	entities   []bool
	entityInfo float64
	// unknownNamed: the query names a word no record holds
	// (rank.UnknownFactor).
	unknownNamed bool
	unseen       float64 // share of the query's information the model cannot read
	novel        float64 // share of the query's information no record holds (rank.Novelty)
	// rarest marks the query's rarest held words (rank.Answer.Rarest): the
	// informative terms, function words aside, of the smallest document
	// frequency some record has (bit i for term i; 0: the query has none).
	rarest uint64
	// asks is the kind of answer the query asks for (askedKind).
	asks answerKind
	// What the last gather saw at the edge of each pool, to bound the
	// score of records beyond it.
	vecFull, lexFull bool
	vecRanked        int
	lastCos          float64
	lastPLex         float64
	rejected         int // candidates the filter turned away
	sc               *gatherScratch
	// first is the first vector pool (rank.PoolSize windows), searched
	// beside the literal channel; nil: gather searches it itself.
	first *vecPool
}

// concurrentChannels selects searching the first vector pool on its own
// goroutine while the literal channel reads its postings (at 100,000
// records each takes about half a millisecond); the tests switch it off
// to compare the rankings with those of the sequential search.
var concurrentChannels = true

// vecPool is a vector search running on its own goroutine.
type vecPool struct {
	done     chan struct{}
	pool     int
	hits     []ann.Hit
	panicked any // what the search panicked with, raised again by wait
}

// searchVectors starts the search for the pool windows nearest vec.
func searchVectors(ix ann.Index, vec []float32, pool int) *vecPool {
	p := &vecPool{done: make(chan struct{}), pool: pool}
	go func() {
		defer close(p.done)
		defer func() { p.panicked = recover() }()
		p.hits = ix.Search(vec, pool)
	}()
	return p
}

// wait returns the search's hits once it has finished. A panic of the
// search is raised here, on the caller's goroutine, where the server's
// recovery can answer it as an error instead of the process dying.
func (p *vecPool) wait() []ann.Hit {
	<-p.done
	if p.panicked != nil {
		panic(p.panicked)
	}
	return p.hits
}

// reuseScratch selects reusing the candidate pool and the literal hits
// from one search to the next; the tests switch it off to compare the
// rankings with those of fresh allocations.
var reuseScratch = true

// gatherScratch is one search's candidate pool, kept for the next search
// (a pool is some hundreds of candidates of a few hundred bytes each, and
// allocating them anew each time kept the collector busy at 100,000
// records). Each gather starts it afresh: a widened pool replaces the
// last one whole.
type gatherScratch struct {
	slab  []candidate // candidates; a full slab is replaced, never grown under pointers into it
	byDoc map[uint32]*candidate
	cands []*candidate
	docs  []uint32
	found []fts.Found   // the candidates' literal hits and ranks
	score []rank.Scored // rank's scores of the kept candidates
	open  []*candidate  // completeCosines: the candidates still to score
	keys  []uint64      // completeCosines: their window keys
}

// unseenShare is the share of the query's information (Σ I(t) over its
// terms) in terms the model has no vector for.
func (r *run) unseenShare() float64 {
	if r.e.reads == nil || !(r.lex.TotalInfo > 0) {
		return 0
	}
	unseen := 0.0
	for _, t := range r.lex.Terms {
		if !r.e.reads(t.Text) {
			unseen += t.Info
		}
	}
	return min(unseen/r.lex.TotalInfo, 1)
}

// novelty is rank.Novelty of the query: the share of its information
// (Σ I(t) over its terms) in terms no record holds, nor any variant of.
func (r *run) novelty() float64 {
	novel, total := 0.0, 0.0
	for _, t := range r.lex.Terms {
		total += t.Info
		if t.DF == 0 {
			novel += t.Info
		}
	}
	return rank.Novelty(novel, total)
}

// gather builds the candidate pool: the best pool windows (each record by
// its best window) and the pool literal hits with the highest p_lex.
// Every candidate found literally at all gets its p_lex and literal rank,
// even one only the vector pool brought in.
func (r *run) gather(pool int) []*candidate {
	if r.sc == nil || !reuseScratch {
		r.sc = &gatherScratch{byDoc: map[uint32]*candidate{}}
	}
	sc := r.sc
	byDoc := sc.byDoc
	clear(byDoc)
	cands := sc.cands[:0]
	if want := 2*pool + 16; cap(sc.slab) < want {
		sc.slab = make([]candidate, 0, want)
	}
	slab := sc.slab[:0]
	get := func(doc uint32) *candidate {
		c := byDoc[doc]
		if c == nil {
			if len(slab) == cap(slab) {
				// Never append past the capacity: the candidates
				// already handed out point into slab.
				c = &candidate{doc: doc}
			} else {
				slab = append(slab, candidate{doc: doc})
				c = &slab[len(slab)-1]
			}
			byDoc[doc] = c
			cands = append(cands, c)
		}
		return c
	}
	defer func() { sc.cands = cands[:0] }()
	r.vecFull, r.vecRanked, r.lastCos = false, 0, 0
	// The literal pool first: while it is selected, the first vector pool
	// may still be searching on the other core.
	top := r.lex.Top(pool)
	if r.semantic {
		var hits []ann.Hit
		if r.first != nil && r.first.pool == pool {
			hits = r.first.wait()
		} else {
			hits = r.e.vec.Search(r.q.Vector, pool)
		}
		r.vecFull = len(hits) >= pool
		for _, h := range hits {
			doc, w := keyDoc(h.Key)
			if _, seen := byDoc[doc]; seen {
				continue
			}
			c := get(doc)
			c.cos, c.window, c.vecSeen = float64(h.Score), w, true
			if r.e.cal.PVec(c.cos) > 0 {
				r.vecRanked++
				c.rankVec = r.vecRanked
			}
		}
		if len(hits) > 0 {
			r.lastCos = float64(hits[len(hits)-1].Score)
		}
	}
	r.lexFull, r.lastPLex = r.lex.Len() > len(top), 0
	if len(top) > 0 {
		r.lastPLex = top[len(top)-1].PLex
	}
	for _, h := range top {
		get(h.Doc)
	}
	// A record holding an identifier of the query that no other record
	// holds is always a candidate, and conclusive, whatever the pool.
	for _, doc := range r.uniqueIdentifierDocs() {
		get(doc).conclusive = true
	}
	// Every candidate the literal channel found at all gets its p_lex and
	// its rank (BM25 order), also those the vector pool brought in.
	docs := sc.docs[:0]
	for _, c := range cands {
		docs = append(docs, c.doc)
	}
	sc.docs = docs[:0]
	sc.found = r.lex.FindAllTo(sc.found, docs)
	for i, f := range sc.found {
		if f.OK {
			cands[i].lex, cands[i].rankLex = f.Hit, f.Rank
		}
	}
	r.completeCosines(cands)
	return cands
}

// completeCosines gives every candidate the literal channel brought in its
// cosine (its best window's), as gather gives every candidate its p_lex.
// Without it a record the vector pool left out counts as semantically
// unrelated, and when the pool is full of near-equal records (thousands
// of "Port N/tcp is registered to …" facts for "what port does postgres
// use") the one the question names loses to those it does not. It keeps
// rank_vec 0: the record was not ranked by the vector pool.
func (r *run) completeCosines(cands []*candidate) {
	scorer, ok := r.e.vec.(ann.KeyScorer)
	if !r.semantic || !ok {
		return
	}
	open := r.sc.open[:0]
	for _, c := range cands {
		if !c.vecSeen {
			open = append(open, c)
		}
	}
	keys := r.sc.keys[:0]
	defer func() { r.sc.open, r.sc.keys = open[:0], keys[:0] }()
	// Windows are numbered 0, 1, … with no gap: score window w of every
	// record that had a window w−1, until none has.
	for w := 0; w < MaxWindows && len(open) > 0; w++ {
		keys = keys[:0]
		for _, c := range open {
			keys = append(keys, windowKey(c.doc, w))
		}
		scores, found := scorer.ScoreKeys(r.q.Vector, keys)
		next := open[:0]
		for i, c := range open {
			if !found[i] {
				continue
			}
			if cos := float64(scores[i]); !c.vecSeen || cos > c.cos {
				c.cos, c.window, c.vecSeen = cos, w, true
			}
			next = append(next, c)
		}
		open = next
	}
}

// rank scores the candidates, drops those the filter rejects and applies
// the cut; it returns the kept candidates and the indexes picked.
func (r *run) rank(cands []*candidate) ([]*candidate, []int) {
	kept := cands[:0]
	r.rejected = 0
	for _, c := range cands {
		if r.q.Filter != nil && !r.q.Filter(c.doc) {
			r.rejected++
			continue
		}
		kept = append(kept, c)
	}
	// The semantic channel's reliability reads the strongest literal
	// match among the records this query may return.
	r.lexBest = 0
	for _, c := range kept {
		r.lexBest = max(r.lexBest, c.pLex())
	}
	n := 0
	for _, c := range kept {
		r.score(c)
		if c.scored.Unaged > 0 {
			kept[n] = c
			n++
		}
	}
	kept = kept[:n]
	// The scores are read by the cut only: their slice is kept for the
	// next search.
	scored := r.sc.score[:0]
	for _, c := range kept {
		scored = append(scored, c.scored)
	}
	r.sc.score = scored[:0]
	return kept, rank.Cut(scored, r.q.TopK)
}

// pLex is the candidate's literal probability: the cap for a record
// holding a unique identifier of the query (conclusive literal evidence,
// which no semantic match alone can outvote: rank.SemanticCap).
func (c *candidate) pLex() float64 {
	if c.conclusive {
		return rank.LiteralCap
	}
	return c.lex.PLex
}

// uniqueIdentifierDocs returns the records holding a query term that is an
// identifier ([isIdentifier]) held by exactly one record: a port, a
// ticket number, a commit SHA named inside a sentence ("which host is on
// port 2345", "tell me about 9f3c2e1a7b4d") is as conclusive as typed
// alone, whatever the other words of the question share with the rest of
// the vault.
func (r *run) uniqueIdentifierDocs() []uint32 {
	var out []uint32
	for i, t := range r.lex.Terms {
		if t.DF != 1 || !t.Active || !isIdentifier(t.Text) {
			continue
		}
		for _, h := range r.lex.Holding(i) {
			out = append(out, h.Doc)
		}
	}
	return out
}

// isIdentifier reports whether a query term reads as an identifier rather
// than a word: at least four runes, one of them a digit, and not a year
// (four digits from 1900 to 2099: "what did I do in 2022" names a time,
// which many records may concern without writing it).
func isIdentifier(term string) bool {
	if utf8.RuneCountInString(term) < 4 || !strings.ContainsAny(term, "0123456789") {
		return false
	}
	return !isYear(term)
}

func isYear(term string) bool {
	if len(term) != 4 || (term[:2] != "19" && term[:2] != "20") {
		return false
	}
	for i := 2; i < 4; i++ {
		if term[i] < '0' || term[i] > '9' {
			return false
		}
	}
	return true
}

func (r *run) score(c *candidate) {
	st := r.e.docs.state(c.doc)
	c.sig = rank.Signals{PVec: r.e.cal.PVec(c.cos), PLex: c.pLex(), RankVec: c.rankVec, RankLex: c.rankLex,
		LexBest: r.lexBest, WVec: r.e.cal.Weight(), Unseen: r.unseen}
	if c.conclusive && c.sig.RankLex == 0 {
		c.sig.RankLex = 1
	}
	if !st.meta.Reference {
		c.sig.Share = r.e.pop.share(st.meta.Seq, r.q.Namespaces)
	}
	c.evidence = rank.Evidence(c.sig)
	c.imp = rank.ImportancePrior(st.meta.Importance)
	days := r.q.Now.Sub(st.meta.Affirmed).Hours() / 24
	c.op = rank.OpinionPrior(st.meta.Opinion, days)
	c.ref = rank.ReferencePrior(st.meta.Reference)
	c.entity = rank.EntityFactor(r.entityShare(c))
	c.scored = rank.Scored{Final: rank.Final(c.evidence, c.imp, c.op+c.ref) * rank.ReferenceEntityFactor(st.meta.Reference, c.entity), Unaged: rank.Unaged(c.sig),
		Relevance: rank.Relevance(c.sig), Rare: c.conclusive || r.holdsRare(c)}
}

// namedTerms marks the query terms that name an entity: a word written
// with a capital inside the question ("Lena", "Grafana", "Kassa's"), not
// its first word, not "I", a month or a weekday, and held by at least one
// record (a name the vault has never seen tells no record from another).
// It returns the marks, the marked terms' Σ I(t), and whether some named
// word is held by no record, nor any variant of it (rank.UnknownFactor;
// words under three letters and "I'm", "I've" are not names there: "OK"
// is no product).
func (r *run) namedTerms() ([]bool, float64, bool) {
	named := map[string]bool{}
	words := strings.FieldsFunc(r.q.Text, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '\'' && c != '’' })
	for i, w := range words {
		first, _ := utf8.DecodeRuneInString(w)
		if i == 0 || !unicode.IsUpper(first) || w == "I" || calendarWord[strings.ToLower(w)] {
			continue
		}
		w = strings.ToLower(w)
		for _, suffix := range []string{"'s", "’s", "'", "’"} {
			w = strings.TrimSuffix(w, suffix)
		}
		named[w] = true
	}
	if len(named) == 0 {
		return nil, 0, false
	}
	marks := make([]bool, len(r.lex.Terms))
	total, unknown := 0.0, false
	for i, t := range r.lex.Terms {
		if !named[t.Text] {
			continue
		}
		if t.DF >= 1 && t.Active && i < 64 {
			marks[i] = true
			total += t.Info
		}
		if utf8.RuneCountInString(t.Text) < 3 || strings.HasPrefix(t.Text, "i'") || strings.HasPrefix(t.Text, "i’") {
			continue
		}
		unknown = unknown || t.DF == 0
	}
	return marks, total, unknown
}

var calendarWord = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "may": true, "june": true, "july": true,
	"august": true, "september": true, "october": true, "november": true, "december": true,
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true, "sunday": true,
}

// entityShare is the share of the named entities' information the
// candidate holds; 1 when the query names none.
func (r *run) entityShare(c *candidate) float64 {
	if !(r.entityInfo > 0) {
		return 1
	}
	held := 0.0
	for i, t := range r.lex.Terms {
		if r.entities[i] && c.rankLex > 0 && c.lex.Matched&(1<<i) != 0 {
			held += t.Info
		}
	}
	return held / r.entityInfo
}

// holdsRare reports whether the candidate holds an informative query
// term at most rank.RareDF records hold: "where can I view metrics in
// Grafana?" names the one record about Grafana, whatever the rest of the
// question shares with the vault.
func (r *run) holdsRare(c *candidate) bool {
	if c.rankLex == 0 {
		return false
	}
	for i, t := range r.lex.Terms {
		if i < 64 && c.lex.Matched&(1<<i) != 0 && t.Informative && t.DF >= 1 && t.DF <= rank.RareDF {
			return true
		}
	}
	return false
}

// rarestTerms marks the informative query terms, function words aside,
// of the smallest document frequency some record holds (df ≥ 1); terms
// past the 64 a match mask holds are never marked.
func (r *run) rarestTerms() uint64 {
	rarest := 0
	for _, t := range r.lex.Terms {
		if t.Informative && t.DF >= 1 && !functionWords[t.Text] && (rarest == 0 || t.DF < rarest) {
			rarest = t.DF
		}
	}
	var mask uint64
	for i, t := range r.lex.Terms {
		if i < 64 && rarest > 0 && t.Informative && t.DF == rarest && !functionWords[t.Text] {
			mask |= 1 << i
		}
	}
	return mask
}

// functionWords are the closed-class English words (pronouns,
// determiners, prepositions, conjunctions, auxiliaries) that are never a
// question's rarest word: in a vault of claims written in the third
// person "we" or "my" can be as rare as a name, and says how the
// memories are written, not what the question asks about.
var functionWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		i me my mine myself we us our ours ourselves you your yours yourself
		he him his himself she her hers herself it its itself they them their
		theirs themselves this that these those who whom whose which what
		a an the some any each every no all both either neither
		of in on at by for with from to into onto upon about above below
		over under between among through during before after since until
		off out up down near
		and or but nor so yet if than then because while though although
		am is are was were be been being have has had having do does did done
		can could will would shall should may might must not`) {
		m[w] = true
	}
	return m
}()

// holdsRarest reports whether the candidate matched, literally, a query
// term as rare as the query's rarest held one (rank.Answer.Rarest): of
// all the question's words the vault knows, the one that says most
// precisely what it asks about.
func (r *run) holdsRarest(c *candidate) bool {
	return c.rankLex > 0 && c.lex.Matched&r.rarest != 0
}

// rarestShare is rank.RarestShare of the candidate.
func (r *run) rarestShare(c *candidate) float64 {
	if !r.holdsRarest(c) {
		return 0
	}
	return rank.RarestShare(true, r.lex.Words(c.lex))
}

// widen decides whether a larger pool could change the answer. With
// top_k: a channel left records out and fewer than top_k survived. With
// the relevance cut: the filter turned candidates away, a channel left
// records out, fewer than the cap survived, and a record beyond the pools
// could still clear the threshold. (Without a filter the relevance cut
// reads the first pools, as the original did: past them a record's
// evidence is at most the weakest pooled one's.)
func (r *run) widen(kept []*candidate, picked []int) bool {
	if !r.vecFull && !r.lexFull {
		return false
	}
	if r.q.TopK > 0 {
		return len(picked) < r.q.TopK
	}
	if r.rejected == 0 || len(picked) >= rank.DefaultResults {
		return false
	}
	best := 0.0
	for _, c := range kept {
		best = max(best, c.scored.Unaged)
	}
	bound := rank.Signals{LexBest: r.lexBest, WVec: r.e.cal.Weight(), Unseen: r.unseen}
	if r.vecFull {
		bound.PVec, bound.RankVec = r.e.cal.PVec(r.lastCos), r.vecRanked+1
	}
	if r.lexFull {
		// Beyond the pool p_lex is at most the pool's last; the BM25 rank
		// can be anything.
		bound.PLex, bound.RankLex = r.lastPLex, 1
	}
	return rank.Passes(rank.Scored{Unaged: rank.Unaged(bound)}, best)
}

func (r *run) results(kept []*candidate, picked []int) []Result {
	// Each result's lead is over the best other candidate with evidence,
	// returned or not: the two best scores are all it needs. Both sides
	// are unaged scores weighed by their entity factors, so a record about
	// another entity than the one the query names leads (and is led by)
	// only as far as it is about the entity named.
	weighed := func(c *candidate) float64 { return c.entity * c.scored.Unaged }
	first, second := -1, 0.0
	for i, c := range kept {
		switch u := weighed(c); {
		case first < 0 || u > weighed(kept[first]):
			if first >= 0 {
				second = weighed(kept[first])
			}
			first = i
		case u > second:
			second = u
		}
	}
	reference := nthUnaged(kept, rank.StandoutRank)
	out := make([]Result, 0, len(picked))
	// The answer's first result: what every later one's confidence is
	// measured against (rank.Behind).
	var firstConf, firstWeighed float64
	for n, i := range picked {
		c := kept[i]
		other := second
		if i != first {
			other = weighed(kept[first])
		}
		lead := rank.Lead(weighed(c), other)
		standout := rank.Standout(weighed(c), reference)
		conf := rank.Confidence(rank.Answer{Relevance: c.scored.Relevance, Lead: lead, Standout: standout,
			LiteralFirst: c.sig.RankLex == 1, First: n == 0, Entity: c.entity, Unknown: r.unknownNamed,
			PVec: c.sig.PVec, Novel: r.novel, Rarest: r.rarestShare(c)})
		if n == 0 {
			firstConf, firstWeighed = conf, weighed(c)
		} else if firstWeighed > 0 {
			// The share is capped at the record's entity factor, as its own
			// confidence is: a record that does not name the entity the
			// query names is not floored up to the first's confidence
			// because its evidence about something else is strong.
			conf = rank.Behind(conf, firstConf, min(weighed(c)/firstWeighed, c.entity))
		}
		// A record holding nothing of the kind of answer asked is not
		// floored up by the first result's confidence, nor does it
		// floor the results after it.
		lacks := r.lacksAnswer(c)
		conf *= rank.AnswerFactor(lacks)
		if n == 0 {
			firstConf = conf
		}
		res := Result{Doc: c.doc, Score: c.scored.Final, Unaged: c.scored.Unaged, Confidence: conf, Match: rank.Match(conf)}
		if r.q.Explain {
			res.Explain = r.explain(c)
			res.Explain.Relevance, res.Explain.Lead, res.Explain.Rare, res.Explain.Entity = c.scored.Relevance, lead, c.scored.Rare, c.entity
			res.Explain.Standout, res.Explain.Novel, res.Explain.Rarest = standout, r.novel, r.rarestShare(c)
			res.Explain.Asks, res.Explain.Lacks = r.asks.String(), lacks
		}
		out = append(out, res)
	}
	return out
}

// lacksAnswer reports whether the query asks for a kind of answer the
// candidate's own words hold no expression of (rank.AnswerFactor).
func (r *run) lacksAnswer(c *candidate) bool {
	return r.asks != askAny && !holdsKind(r.asks, r.q.RecordText(c.doc))
}

// nthUnaged is the nth best unaged score of the candidates, weighed by
// their entity factors as the lead's are (the weakest one's when there
// are fewer), 0 when there are none: the reference rank.Standout measures
// a result against. It keeps the n best in a fixed array, so it
// allocates nothing.
func nthUnaged(kept []*candidate, n int) float64 {
	var top [rank.StandoutRank]float64 // best first
	n = min(max(n, 1), len(top))
	k := 0
	for _, c := range kept {
		u := c.entity * c.scored.Unaged
		if k == n && u <= top[n-1] {
			continue
		}
		j := min(k, n-1)
		for j > 0 && top[j-1] < u {
			top[j] = top[j-1]
			j--
		}
		top[j] = u
		k = min(k+1, n)
	}
	if k == 0 {
		return 0
	}
	return top[k-1]
}

// fill completes a top_k answer to exactly top_k results when the scope
// (the records the filter accepts) holds that many: after the records with
// evidence come the others, newest first, at score 0. "top_k 3" over four
// memories returns three.
func (r *run) fill(out []Result) []Result {
	if r.q.TopK <= 0 || len(out) >= r.q.TopK {
		return out
	}
	have := make(map[uint32]bool, len(out))
	for _, res := range out {
		have[res.Doc] = true
	}
	var rest []uint32
	r.e.docs.each(func(doc uint32) {
		if !have[doc] && (r.q.Filter == nil || r.q.Filter(doc)) {
			rest = append(rest, doc)
		}
	})
	slices.SortFunc(rest, func(a, b uint32) int {
		sa, sb := r.e.docs.seqOf(a), r.e.docs.seqOf(b)
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return int(a) - int(b)
	})
	for _, doc := range rest[:min(len(rest), r.q.TopK-len(out))] {
		res := Result{Doc: doc, Match: rank.MatchWeak}
		if r.q.Explain {
			res.Explain = &Explanation{Mode: fts.ModeNone.String(), Framing: r.lex.Framing}
		}
		out = append(out, res)
	}
	return out
}

func (r *run) explain(c *candidate) *Explanation {
	x := &Explanation{
		Cosine: c.cos, Window: c.window, PVec: c.sig.PVec, RankVec: c.sig.RankVec,
		Reliability: c.sig.Reliability(), Unseen: c.sig.Unseen,
		PLex: c.sig.PLex, RankLex: c.sig.RankLex, Mode: fts.ModeNone.String(), Framing: r.lex.Framing,
		Share: c.sig.Share, Evidence: c.evidence,
		ImportancePrior: c.imp, OpinionPrior: c.op, ReferencePrior: c.ref,
	}
	for _, t := range r.lex.Terms {
		x.Query = append(x.Query, QueryTerm{Term: t.Text, DF: t.DF, Info: t.Info})
	}
	if c.rankLex > 0 {
		x.Terms = r.lex.Explain(c.lex)
		x.Mode = fts.ModeOR.String()
		if c.lex.All {
			x.Mode = fts.ModeAND.String()
		}
	}
	return x
}
