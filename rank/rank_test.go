package rank

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

const eps = 1e-9

func near(a, b float64) bool { return math.Abs(a-b) < eps }

func TestPVec(t *testing.T) {
	for _, tc := range []struct{ cos, want float64 }{
		{-1, 0},
		{0, 0},
		{0.25, 0},
		{0.40, 0.25},
		{0.55, 0.5},
		{0.70, 0.75},
		{0.778, 0.88},
		{0.85, 0.88},
		{1, 0.88},
		{math.NaN(), 0},
	} {
		if got := SpecCalibration.PVec(tc.cos); !near(got, tc.want) {
			t.Errorf("PVec(%v) = %v, want %v", tc.cos, got, tc.want)
		}
	}
}

func TestTermInfo(t *testing.T) {
	for _, tc := range []struct {
		n, df int
		want  float64
	}{
		{0, 0, 0},
		{100, 0, math.Log(50)}, // absent: worth what one record holding it is
		{100, 1, math.Log(50)},
		{2, 0, MinTermInfo}, // a vault of two: an absent word outweighs no match
		{100, 9, math.Log(10)},
		{100, 98, MinTermInfo}, // ln(100/99) = 0.01005 is just above the floor
		{100, 99, MinTermInfo},
		{100, 100, MinTermInfo}, // ln(100/101) < 0: floored
		{1, 1, MinTermInfo},
		{20000, 1, math.Log(10000)},
	} {
		if got := TermInfo(tc.n, tc.df); math.Abs(got-tc.want) > 1e-3 {
			t.Errorf("TermInfo(%d, %d) = %v, want %v", tc.n, tc.df, got, tc.want)
		}
	}
}

func TestInformativeDF(t *testing.T) {
	for _, tc := range []struct{ n, want int }{
		{0, 1}, {5, 1}, {10, 1}, {19, 1}, {20, 2}, {48, 4}, {99, 9}, {20000, 2000},
	} {
		if got := InformativeDF(tc.n); got != tc.want {
			t.Errorf("InformativeDF(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

func TestPLex(t *testing.T) {
	for _, tc := range []struct{ matched, total, want float64 }{
		{1, 2, 0.5},
		{2, 2, LiteralCap},
		{3, 2, LiteralCap},
		{0, 2, 0},
		{1, 0, 0},
		{-1, 2, 0},
	} {
		if got := PLex(tc.matched, tc.total); !near(got, tc.want) {
			t.Errorf("PLex(%v, %v) = %v, want %v", tc.matched, tc.total, got, tc.want)
		}
	}
}

func TestChannelTerms(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"VecTerm(0)", VecTerm(0), 0},
		{"VecTerm(0.5)", VecTerm(0.5), 0.75 * math.Ln2},
		{"VecTerm(cap)", VecTerm(SemanticCap), -0.75 * math.Log(0.12)},
		{"LexTerm(0)", LexTerm(0), 0},
		{"LexTerm(cap)", LexTerm(LiteralCap), 0.25 * math.Log(1000)},
		{"Residue(0,0)", Residue(0, 0), 0},
		{"Residue(1,0)", Residue(1, 0), 0.1 * 20 / 21},
		{"Residue(0,1)", Residue(0, 1), 0.1 * 20 / 21},
		{"Residue(1,1)", Residue(1, 1), 0.2 * 20 / 21},
		{"Residue(20,0)", Residue(20, 0), 0.05},
		{"Residue(3,7)", Residue(3, 7), 2 * (1.0/23 + 1.0/27)},
		{"WeightedTerms(0) vec = VecTerm", first(WeightedTerms(0, 0.5, 0.3)), VecTerm(0.5)},
		{"WeightedTerms(0) lex = LexTerm", second(WeightedTerms(0, 0.5, 0.3)), LexTerm(0.3)},
		{"WeightedTerms(0.4) vec", first(WeightedTerms(0.4, 0.5, 0.5)), 0.4 * math.Ln2},
		{"WeightedTerms(0.4) lex", second(WeightedTerms(0.4, 0.5, 0.5)), 0.6 * math.Ln2},
		{"WeightedTerms(1) is the spec's", first(WeightedTerms(1, 0.5, 0.5)), VecTerm(0.5)},
		{"WeightedTerms(-0.2) is the spec's", second(WeightedTerms(-0.2, 0.5, 0.5)), LexTerm(0.5)},
		{"Weight unset", Calibration{}.Weight(), 0.75},
		{"Weight 0.4", Calibration{SemanticWeight: 0.4}.Weight(), 0.4},
		{"Weight 1 (out of range)", Calibration{SemanticWeight: 1}.Weight(), 0.75},
		{"Weight NaN", Calibration{SemanticWeight: math.NaN()}.Weight(), 0.75},
	} {
		if !near(tc.got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

func TestAged(t *testing.T) {
	for _, tc := range []struct{ s, q, want float64 }{
		{1, 0, 1},
		{0, 0.7, 0},
		{1, 0.5, math.Log(1 + 0.5*(math.E-1))},
		{1, 1, math.Log(1 + 0.25*(math.E-1))},
		{2, 0.25, math.Log(1 + math.Pow(2, -0.5)*(math.Exp(2)-1))},
	} {
		if got := Aged(tc.s, tc.q); !near(got, tc.want) {
			t.Errorf("Aged(%v, %v) = %v, want %v", tc.s, tc.q, got, tc.want)
		}
	}
}

func TestEvidence(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Signals
		want float64
	}{
		{"nothing", Signals{}, 0},
		{"ranks without evidence", Signals{RankVec: 1, RankLex: 1}, 0},
		{"semantic only", Signals{PVec: 0.5, RankVec: 1},
			0.75*math.Ln2 + 0.1*20/21},
		{"literal only", Signals{PLex: 0.5, RankLex: 2},
			0.25*math.Ln2 + 0.1*20/22},
		{"rank of an empty channel ignored", Signals{PLex: 0.5, RankLex: 2, RankVec: 1},
			0.25*math.Ln2 + 0.1*20/22},
		{"both, aged", Signals{PVec: 0.5, PLex: 0.5, RankVec: 1, RankLex: 1, Share: 0.5},
			math.Log(1+0.5*(math.Exp(0.75*math.Ln2)-1)) + 0.25*math.Ln2 + 0.2*20/21},
		{"a model's own weight", Signals{PVec: 0.5, PLex: 0.5, RankVec: 1, RankLex: 1, WVec: 0.4},
			0.4*math.Ln2 + 0.6*math.Ln2 + 0.2*20/21},
		{"weight and reliability", Signals{PVec: 0.5, PLex: 0.75, RankVec: 1, RankLex: 2, WVec: 0.4, LexBest: 0.75},
			0.5*(0.4*math.Ln2+0.1*20/21) + 0.6*math.Log(4) + 0.1*20/22},
	} {
		if got := Evidence(tc.s); !near(got, tc.want) {
			t.Errorf("%s: Evidence = %v, want %v", tc.name, got, tc.want)
		}
	}
	s := Signals{PVec: 0.6, PLex: 0.3, RankVec: 2, RankLex: 1, Share: 0.9}
	if got, want := Unaged(s), VecTerm(0.6)+LexTerm(0.3)+Residue(2, 1); !near(got, want) {
		t.Errorf("Unaged = %v, want %v", got, want)
	}
	if Evidence(s) >= Unaged(s) {
		t.Errorf("aging did not lower the evidence of an old record")
	}
}

func TestPriors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"importance 0.5", ImportancePrior(0.5), 0},
		{"importance 1", ImportancePrior(1), 0.15},
		{"importance 0", ImportancePrior(0), -0.15},
		{"importance clamped", ImportancePrior(7), 0.15},
		{"fact", OpinionPrior(false, 0), 0},
		{"fresh opinion", OpinionPrior(true, 0), 0.30},
		{"30-day opinion", OpinionPrior(true, 30), 0.15},
		{"90-day opinion", OpinionPrior(true, 90), 0.0375},
		{"future affirmation", OpinionPrior(true, -5), 0.30},
		{"final", Final(2, 0.15, 0.3), 2.9},
		{"final neutral", Final(1.3, 0, 0), 1.3},
		{"final of nothing", Final(0, 0.15, 0.3), 0},
	} {
		if !near(tc.got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

func TestRelevance(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Signals
		want float64
	}{
		{"nothing", Signals{}, 0},
		{"semantic alone", Signals{PVec: 0.6}, 0.6},
		{"literal alone", Signals{PLex: 0.6}, 0.6},
		// Two partial matches add up as independent evidence.
		{"both halves", Signals{PVec: 0.5, PLex: 0.5}, 0.75},
		// The semantic channel counts through its reliability:
		// best p_lex 0.75 gives ρ = 0.5, so p_vec 0.75 counts as 0.5.
		{"reliability", Signals{PVec: 0.75, LexBest: 0.75}, 0.5},
		// Ranks and the vault share are not evidence of relevance.
		{"ranks and age ignored", Signals{PVec: 0.6, RankVec: 1, RankLex: 1, Share: 1}, 0.6},
	} {
		if got := Relevance(tc.s); !near(got, tc.want) {
			t.Errorf("%s: Relevance = %v, want %v", tc.name, Relevance(tc.s), tc.want)
		}
	}
}

// Confidence reads calibrated probabilities, so it means the same cosine
// relative to each model's own bounds: a cosine at the same place between
// a model's floor and ceiling gets the same confidence and label for every
// model.
func TestConfidenceScaleFree(t *testing.T) {
	static := Calibration{CosFloor: 0.2476, CosCeil: 0.8459, SameMeaning: 0.5369, SameTopic: 0.5202}
	for _, x := range []float64{0.1, 0.4, 0.55, 0.6, 0.65, 0.9} {
		var got []float64
		for _, cal := range []Calibration{SpecCalibration, static} {
			cos := cal.CosFloor + x*(cal.CosCeil-cal.CosFloor)
			pv := cal.PVec(cos)
			got = append(got, Confidence(Answer{Relevance: Relevance(Signals{PVec: pv}), Lead: 1, First: true, PVec: pv}))
		}
		if !near(got[0], got[1]) || Match(got[0]) != Match(got[1]) {
			t.Errorf("cosine at %.2f of the calibrated range: bge-small confidence %v, static %v", x, got[0], got[1])
		}
	}
}

func TestStandout(t *testing.T) {
	for _, tc := range []struct{ unaged, ref, want float64 }{
		{0.5, 0.5, 0},             // the record is the reference
		{0.5, 0.25, math.Log(2)},  // twice the 20th candidate
		{0.25, 0.5, -math.Log(2)}, // a rare-word holder below it
		{0.9, 1e-9, StandoutCap},  // clamped
		{1e-9, 0.9, -StandoutCap}, // clamped
		{0.5, 0, StandoutCap},     // no reference: nothing to fall short of
		{0, 0.5, -StandoutCap},    // no evidence
	} {
		if got := Standout(tc.unaged, tc.ref); !near(got, tc.want) {
			t.Errorf("Standout(%v, %v) = %v, want %v", tc.unaged, tc.ref, got, tc.want)
		}
	}
	// Confidence grows with the standout, up to the cap.
	a := Answer{Relevance: 0.6, Lead: 0.5, First: true}
	prev := 0.0
	for _, s := range []float64{-StandoutCap, -1, 0, 0.5, 1, 2, StandoutCap} {
		a.Standout = s
		if c := Confidence(a); c <= prev {
			t.Errorf("Confidence with standout %v = %v after %v: want increasing", s, c, prev)
		} else {
			prev = c
		}
	}
	a.Standout = 2 * StandoutCap
	if c := Confidence(a); !near(c, prev) {
		t.Errorf("a standout past the cap still changes the confidence: %v, want %v", c, prev)
	}
}

func TestConfidence(t *testing.T) {
	conf := func(rel, lead float64) float64 { return Confidence(Answer{Relevance: rel, Lead: lead}) }
	// At z = 0 the model says one half.
	r0 := 1 / (1 + math.Exp(ConfidenceBias/ConfidenceRelevanceWeight))
	if got := conf(r0, 0); !near(got, 0.5) {
		t.Errorf("Confidence at z = 0 = %v, want 0.5", got)
	}
	if conf(0, LeadCap) != 0 {
		t.Error("a record with no relevance has confidence")
	}
	// Monotone in relevance and lead, and bounded by 1.
	prev := 0.0
	for _, rel := range []float64{0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 1} {
		c := conf(rel, 1)
		if c <= prev || c > 1 {
			t.Errorf("Confidence(%v, 1) = %v after %v: want increasing, ≤ 1", rel, c, prev)
		}
		prev = c
	}
	if conf(0.9, -1) >= conf(0.9, 0) || conf(0.9, 0) >= conf(0.9, 1) {
		t.Error("confidence does not grow with the lead")
	}
	// The lead is read up to ±1.5: past it only relevance counts.
	if conf(0.5, ConfidenceLeadClamp) != conf(0.5, LeadCap) {
		t.Error("a lead past the clamp still changes the confidence")
	}
	// Each flag adds evidence; each multiplier takes it away.
	base := Answer{Relevance: 0.5, Lead: 0.3}
	lit, first := base, base
	lit.LiteralFirst, first.First = true, true
	if !(Confidence(lit) > Confidence(base)) || !(Confidence(first) > Confidence(base)) {
		t.Error("the literal channel's first place or the answer's first place adds nothing")
	}
	// The semantic probability adds evidence; words no record holds take
	// it away, and both are read inside [0, 1] only.
	sem, novel := first, first
	sem.PVec, novel.Novel = 0.5, 0.5
	if !(Confidence(sem) > Confidence(first)) || !(Confidence(novel) < Confidence(first)) {
		t.Errorf("p_vec or novelty: %v, %v against %v", Confidence(sem), Confidence(novel), Confidence(first))
	}
	past, edge := first, first
	past.PVec, past.Novel, edge.PVec, edge.Novel = 2, 3, 1, 1
	if !near(Confidence(past), Confidence(edge)) {
		t.Errorf("p_vec or novelty past 1 still change the confidence: %v, want %v", Confidence(past), Confidence(edge))
	}
	// Holding the question's rarest word adds evidence, read inside
	// [0, 1] only.
	rarest, past2 := first, first
	rarest.Rarest, past2.Rarest = 1, 4
	if !(Confidence(rarest) > Confidence(first)) || !near(Confidence(past2), Confidence(rarest)) {
		t.Errorf("rarest word: %v (past 1: %v) against %v", Confidence(rarest), Confidence(past2), Confidence(first))
	}
	other, unknown := first, first
	other.Entity, unknown.Unknown = EntityFactor(0), true
	if !near(Confidence(other), 0.5*Confidence(first)) || !near(Confidence(unknown), WUnknown*Confidence(first)) {
		t.Errorf("entity factor or unknown name: %v, %v against %v", Confidence(other), Confidence(unknown), Confidence(first))
	}
}

// TestConfidenceLabels is the model's operating points as a table of
// features and the label they must get.
func TestConfidenceLabels(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    Answer
		want string
	}{
		{"conclusive literal match, far ahead", Answer{Relevance: 0.999, Lead: 3, LiteralFirst: true, First: true}, MatchStrong},
		{"clear winner of both channels", Answer{Relevance: 0.9, Lead: 1, Standout: 2, LiteralFirst: true, First: true}, MatchStrong},
		// Two records that both hold all of the query's information are
		// both to be relied on (two notes about PM-0042).
		{"a tie of conclusive matches", Answer{Relevance: 0.999, Lead: 0, LiteralFirst: true, First: true}, MatchStrong},
		{"a tie of middling matches is weak", Answer{Relevance: 0.4, Lead: 0, Standout: 2, First: true}, MatchWeak},
		// Two memories about the same person, both naming them (the
		// question's rarest word): the first one, which the literal
		// channel ranks first, is to be relied on although it leads by
		// little; the second is weak.
		{"first of two alike", Answer{Relevance: 0.55, Lead: 0.2, Standout: 2, LiteralFirst: true, First: true, Rarest: 1}, MatchStrong},
		{"second of two alike", Answer{Relevance: 0.5, Lead: -0.2, Standout: 1.8, Rarest: 1}, MatchWeak},
		{"first of two alike without the name", Answer{Relevance: 0.55, Lead: 0.2, Standout: 2, LiteralFirst: true, First: true}, MatchWeak},
		{"paraphrase found by meaning alone, first", Answer{Relevance: 0.6, Lead: 0.6, Standout: 2.5, First: true}, MatchLikely},
		// The same result in a pool as strong as it is: a question no
		// memory answers shares its topic word with a few records, and the
		// best of them leads the next, but stands out of nothing.
		{"near miss: leads the next, stands out of nothing", Answer{Relevance: 0.6, Lead: 0.6, Standout: 0.5, First: true}, MatchWeak},
		// A paraphrase the model finds close in meaning: likely, where the
		// same evidence without the semantic channel's say is weak, and a
		// question half in words no record holds is weak again.
		{"paraphrase close in meaning", Answer{Relevance: 0.45, Lead: 0.4, Standout: 1.5, First: true, PVec: 0.9}, MatchLikely},
		{"the same without the model's say", Answer{Relevance: 0.45, Lead: 0.4, Standout: 1.5, First: true}, MatchWeak},
		{"the same in words the vault never saw", Answer{Relevance: 0.45, Lead: 0.4, Standout: 1.5, First: true, PVec: 0.9, Novel: 1}, MatchWeak},
		// A paraphrase that shares one word with its answer, the question's
		// rarest ("what does my wife do for a living?": "Marcus's wife Elin
		// works as a veterinarian"): likely in a one-claim memory, weak in
		// a long text that holds the word in passing, and weak in a record
		// that shares as much of the question but not that word.
		{"one claim holding the rarest word", Answer{Relevance: 0.3, Lead: 0.38, Standout: 1.36, LiteralFirst: true, First: true, Rarest: RarestShare(true, 15)}, MatchLikely},
		{"a long text holding the rarest word", Answer{Relevance: 0.3, Lead: 0.38, Standout: 1.36, LiteralFirst: true, First: true, Rarest: RarestShare(true, 100)}, MatchWeak},
		{"the same evidence without the rarest word", Answer{Relevance: 0.3, Lead: 0.38, Standout: 1.36, LiteralFirst: true, First: true}, MatchWeak},
		{"weak evidence, no lead", Answer{Relevance: 0.3, Lead: 0.05, Standout: 2, First: true}, MatchWeak},
		{"lone candidate with faint evidence", Answer{Relevance: 0.1, Lead: LeadCap, First: true}, MatchWeak},
		{"another entity than the one named is not likely", Answer{Relevance: 0.9, Lead: 1, LiteralFirst: true, First: true, Entity: EntityFactor(0)}, MatchWeak},
		{"the question names what no record holds", Answer{Relevance: 0.9, Lead: 1, LiteralFirst: true, First: true, Unknown: true}, MatchWeak},
		{"the relevance of nothing", Answer{Relevance: 0, Lead: LeadCap, LiteralFirst: true, First: true}, MatchWeak},
	} {
		if got := Match(Confidence(tc.a)); got != tc.want {
			t.Errorf("%s: %+v → confidence %.3f, %s; want %s", tc.name, tc.a, Confidence(tc.a), got, tc.want)
		}
	}
	// No confidence survives an unknown name as likely.
	if Match(Confidence(Answer{Relevance: 1, Lead: LeadCap, LiteralFirst: true, First: true, Unknown: true})) != MatchWeak || UnknownFactor(false) != 1 {
		t.Error("an unknown name leaves a result likely, or a known one lowers it")
	}
	// Nor does any confidence survive a record lacking the kind of answer
	// asked, and one holding it keeps its own.
	if Match(AnswerFactor(true)*Confidence(Answer{Relevance: 1, Lead: LeadCap, LiteralFirst: true, First: true})) != MatchWeak || AnswerFactor(false) != 1 {
		t.Error("a record lacking the kind of answer asked stays likely, or one holding it is lowered")
	}
}

// Behind: a result after the first keeps its own confidence, or the
// first's times its share of the first's score when that is more; the
// floor never passes the first's confidence, so a weak first result
// leaves every later one as weak as the model made it.
func TestBehind(t *testing.T) {
	for _, tc := range []struct{ own, first, ratio, want float64 }{
		{0.18, 0.74, 0.70, 0.74 * 0.70}, // nearly tied with a strong first: raised
		{0.60, 0.74, 0.50, 0.60},        // its own evidence says more
		{0.10, 0.74, 1.30, 0.74},        // scores above the first (aging, priors): the first's, no more
		{0.90, 0.74, 1.30, 0.90},        // its own confidence is never lowered
		{0.05, 0.40, 0.95, 0.40 * 0.95}, // a weak first: the floor stays under it
		{0.20, 0, 0.9, 0.20},            // a first with no confidence lends none
		{0.20, 0.74, 0, 0.20},           // no score: nothing shared
	} {
		if got := Behind(tc.own, tc.first, tc.ratio); !near(got, tc.want) {
			t.Errorf("Behind(%v, %v, %v) = %v, want %v", tc.own, tc.first, tc.ratio, got, tc.want)
		}
	}
	// Whatever the ratio, the floor alone never makes a later result
	// strong or likely when the first is weak.
	for _, ratio := range []float64{0.6, 0.9, 1, 2} {
		if c := Behind(0.1, LikelyConfidence-0.01, ratio); Match(c) != MatchWeak {
			t.Errorf("a weak first result lends %v at ratio %v: %s", c, ratio, Match(c))
		}
	}
}

func TestLead(t *testing.T) {
	for _, tc := range []struct {
		u, other, want float64
	}{{1, 0, LeadCap}, {0, 1, -LeadCap}, {2, 1, math.Log(2)}, {1, 2, -math.Log(2)}, {1e9, 1e-9, LeadCap}} {
		if got := Lead(tc.u, tc.other); !near(got, tc.want) {
			t.Errorf("Lead(%v, %v) = %v, want %v", tc.u, tc.other, got, tc.want)
		}
	}
}

func TestCut(t *testing.T) {
	c := []Scored{
		{Final: 1.0, Unaged: 2.0}, // 0
		{Final: 1.5, Unaged: 1.3}, // 1
		{Final: 0.9, Unaged: 1.1}, // 2: below 0.6 of the best
		{Final: 3.0, Unaged: 0.5}, // 3: far below, whatever its final
		{Final: 0, Unaged: 0},     // 4: no evidence
	}
	for _, tc := range []struct {
		name string
		topK int
		want []int
	}{
		{"default answer", 0, []int{1, 0}},
		{"top 3 by final", 3, []int{3, 1, 0}},
		{"top 10: only those with evidence", 10, []int{3, 1, 0, 2}},
	} {
		if got := Cut(c, tc.topK); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Cut = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Empty only when nothing has evidence: a weak best still comes back.
	if got := Cut([]Scored{{Final: 0.01, Unaged: 0.01}, {}}, 0); !slices.Equal(got, []int{0}) {
		t.Errorf("weak evidence: Cut = %v, want [0]", got)
	}
	if got := Cut([]Scored{{}, {}}, 0); len(got) != 0 {
		t.Errorf("no evidence: Cut = %v, want []", got)
	}
	// A rare word's holder comes back whatever its score.
	rare := slices.Clone(c)
	rare[3].Rare = true
	if got := Cut(rare, 0); !slices.Equal(got, []int{3, 1, 0}) {
		t.Errorf("rare word: Cut = %v, want [3 1 0]", got)
	}
	many := make([]Scored, 250)
	for i := range many {
		many[i] = Scored{Final: 1 + float64(i)/1000, Unaged: 1, Relevance: 0.9}
	}
	got := Cut(many, 0)
	if len(got) != DefaultResults || got[0] != 249 {
		t.Errorf("default answer returned %d results starting at %d, want %d starting at 249", len(got), got[0], DefaultResults)
	}
	// Rare holders take the budget before the others.
	for i := range 10 {
		many[i].Rare = true
	}
	if got := Cut(many, 0); len(got) != DefaultResults || got[0] != 9 || got[4] != 5 {
		t.Errorf("rare holders first: Cut = %v, want [9 8 7 6 5]", got)
	}
	if got := Cut(many, 150); len(got) != 150 {
		t.Errorf("top_k 150 returned %d", len(got))
	}
}

// A literal match on a term unique to one memory outranks ten paraphrases,
// whatever their cosines (up to 1) and whatever the unique memory's own
// cosine or age. The query is the unique term plus terms every memory
// holds.
func TestPropertyUniqueLiteralOutranksParaphrases(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(11, 100000).Draw(t, "records")
		common := rapid.IntRange(0, 6).Draw(t, "common terms")
		uniqueInfo := TermInfo(n, 1)
		commonInfo := float64(common) * TermInfo(n, n)
		total := uniqueInfo + commonInfo
		unique := Signals{
			PVec:    SpecCalibration.PVec(rapid.Float64Range(-1, 1).Draw(t, "unique cos")),
			PLex:    PLex(total, total),
			RankLex: 1,
			Share:   rapid.Float64Range(0, 1).Draw(t, "unique share"),
		}
		if unique.PVec > 0 {
			unique.RankVec = 11
		}
		cosines := make([]float64, 10)
		for i := range cosines {
			cosines[i] = rapid.Float64Range(-1, 1).Draw(t, "paraphrase cos")
		}
		slices.Sort(cosines)
		slices.Reverse(cosines)
		for i, cos := range cosines {
			p := Signals{PVec: SpecCalibration.PVec(cos), RankVec: i + 1, PLex: PLex(commonInfo, total), RankLex: i + 2}
			if Evidence(p) >= Evidence(unique) || Unaged(p) >= Unaged(unique) {
				t.Fatalf("paraphrase %d (cos %.3f) scores %.4f/%.4f ≥ unique literal %.4f/%.4f",
					i, cos, Evidence(p), Unaged(p), Evidence(unique), Unaged(unique))
			}
		}
	})
}

// A prior never surfaces a memory that matched nothing: with no evidence
// the final score is 0 and no cut returns it, whatever its importance,
// opinion recency, age or channel ranks.
func TestPropertyPriorNeverSurfacesNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := Signals{
			PVec:    SpecCalibration.PVec(rapid.Float64Range(-1, 0.25).Draw(t, "cos")),
			RankVec: rapid.IntRange(0, 300).Draw(t, "rank vec"),
			RankLex: rapid.IntRange(0, 300).Draw(t, "rank lex"),
			Share:   rapid.Float64Range(0, 1).Draw(t, "share"),
		}
		imp := ImportancePrior(rapid.Float64Range(0, 1).Draw(t, "importance"))
		op := OpinionPrior(rapid.Bool().Draw(t, "opinion"), rapid.Float64Range(-10, 400).Draw(t, "days"))
		final := Final(Evidence(s), imp, op)
		if final != 0 {
			t.Fatalf("a memory with no evidence scored %v", final)
		}
		others := []Scored{{Final: final, Unaged: Unaged(s), Relevance: Relevance(s)}, {Final: 0.2, Unaged: 0.2, Relevance: 0.9}}
		for _, k := range []int{0, 1, 2, 5} {
			if slices.Contains(Cut(others, k), 0) {
				t.Fatalf("cut with top_k %d returned a memory that matched nothing", k)
			}
		}
	})
}

// The semantic cap keeps any cosine's term below a conclusive literal
// match's, also with the best semantic rank against the worst literal one.
func TestPropertySemanticCapBelowConclusiveLiteral(t *testing.T) {
	conclusive := LexTerm(PLex(1, 1))
	rapid.Check(t, func(t *rapid.T) {
		cos := rapid.Float64Range(-1, 1).Draw(t, "cos")
		if v := VecTerm(SpecCalibration.PVec(cos)); v >= conclusive {
			t.Fatalf("cos %v gives semantic evidence %v ≥ conclusive literal %v", cos, v, conclusive)
		}
		rankLex := rapid.IntRange(1, 1000).Draw(t, "literal rank")
		vecOnly := Evidence(Signals{PVec: SpecCalibration.PVec(cos), RankVec: 1})
		litOnly := Evidence(Signals{PLex: LiteralCap, RankLex: rankLex})
		if rankLex == 1 && vecOnly >= litOnly {
			t.Fatalf("cos %v at rank 1 (%v) ties or beats a conclusive literal match at rank 1 (%v)", cos, vecOnly, litOnly)
		}
	})
}

// Aging moves only the semantic channel: for equal signals a newer record
// (smaller share) never scores lower, and a literal-only record does not
// age at all.
func TestPropertyAgingSemanticOnly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := Signals{
			PVec:    SpecCalibration.PVec(rapid.Float64Range(-1, 1).Draw(t, "cos")),
			PLex:    rapid.Float64Range(0, LiteralCap).Draw(t, "plex"),
			RankVec: rapid.IntRange(1, 300).Draw(t, "rank vec"),
			RankLex: rapid.IntRange(1, 300).Draw(t, "rank lex"),
		}
		q1 := rapid.Float64Range(0, 1).Draw(t, "q1")
		q2 := rapid.Float64Range(q1, 1).Draw(t, "q2")
		newer, older := s, s
		newer.Share, older.Share = q1, q2
		if Evidence(newer) < Evidence(older)-eps {
			t.Fatalf("newer record (q=%v) scores %v < older (q=%v) %v", q1, Evidence(newer), q2, Evidence(older))
		}
		lit := Signals{PLex: s.PLex, RankLex: s.RankLex, Share: q2}
		if !near(Evidence(lit), Unaged(lit)) {
			t.Fatalf("a literal-only record aged: %v vs %v", Evidence(lit), Unaged(lit))
		}
	})
}

// With a conclusive literal match in the query's scope, no record can
// overtake it on the semantic channel, however close its cosine; without
// one the semantic channel keeps its whole weight.
func first(a, _ float64) float64  { return a }
func second(_, b float64) float64 { return b }

// Whatever the model's semantic weight, a record with conclusive literal
// evidence is not outvoted by any record the semantic channel puts at the
// cap, nor by one that also holds most of the query literally.
func TestPropertyConclusiveLiteralAtAnyWeight(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := rapid.Float64Range(0.05, 0.9).Draw(t, "w_vec")
		conclusive := Signals{PLex: LiteralCap, RankLex: rapid.IntRange(1, 50).Draw(t, "lex rank"), LexBest: LiteralCap, WVec: w,
			PVec: rapid.Float64Range(0, SemanticCap).Draw(t, "its p_vec"), RankVec: rapid.IntRange(0, 200).Draw(t, "its vec rank")}
		other := Signals{PVec: SemanticCap, RankVec: 1, WVec: w, LexBest: LiteralCap,
			PLex: rapid.Float64Range(0, 0.9).Draw(t, "p_lex"), RankLex: rapid.IntRange(0, 50).Draw(t, "rank")}
		if other.PLex > 0 && other.RankLex == 0 {
			other.RankLex = 1
		}
		if Unaged(other) >= Unaged(conclusive) {
			t.Fatalf("w_vec %v: %+v outvotes the conclusive %+v", w, other, conclusive)
		}
	})
}

func TestSemanticReliability(t *testing.T) {
	if SemanticReliability(0, 0) != 1 || SemanticReliability(-1, 0) != 1 {
		t.Fatal("no literal match must leave the semantic channel whole")
	}
	rapid.Check(t, func(t *rapid.T) {
		for _, cal := range []Calibration{SpecCalibration, {CosFloor: 0.2476, CosCeil: 0.8459, SameMeaning: 0.5369, SameTopic: 0.5202}} {
			conclusive := Signals{PLex: LiteralCap, RankLex: rapid.IntRange(1, 50).Draw(t, "lex rank"), LexBest: LiteralCap,
				PVec: cal.PVec(rapid.Float64Range(-1, 1).Draw(t, "its cos")), RankVec: rapid.IntRange(0, 50).Draw(t, "its vec rank")}
			other := Signals{PVec: cal.PVec(rapid.Float64Range(-1, 1).Draw(t, "cos")), RankVec: 1,
				PLex: rapid.Float64Range(0, 0.9).Draw(t, "p_lex"), RankLex: rapid.IntRange(0, 50).Draw(t, "rank"), LexBest: LiteralCap}
			if Unaged(other) >= Unaged(conclusive) {
				t.Fatalf("%+v outvotes the conclusive %+v", other, conclusive)
			}
		}
	})
	s := Signals{PVec: 0.5, RankVec: 1}
	if got, want := Evidence(s), VecTerm(0.5)+Residue(1, 0); !near(got, want) {
		t.Fatalf("no literal match: evidence %v, want %v", got, want)
	}
	s.LexBest = 0.75
	if got, want := Evidence(s), 0.5*(VecTerm(0.5)+Residue(1, 0)); !near(got, want) {
		t.Fatalf("best p_lex 0.75: evidence %v, want half of the semantic term, %v", got, want)
	}
	// A model that cannot read part of the query's information weighs
	// only the share it reads, on top of the literal reliability.
	for _, c := range []struct{ best, unseen, want float64 }{
		{0, 0.4, 0.6}, {0.75, 0.5, 0.25}, {0, 1, 0}, {0, -0.2, 1}, {0, 1.5, 0}, {0.75, 0, 0.5},
	} {
		if got := SemanticReliability(c.best, c.unseen); !near(got, c.want) {
			t.Errorf("SemanticReliability(%v, %v) = %v, want %v", c.best, c.unseen, got, c.want)
		}
	}
	s.LexBest, s.Unseen = 0, 0.4
	if got, want := Evidence(s), 0.6*(VecTerm(0.5)+Residue(1, 0)); !near(got, want) {
		t.Fatalf("unseen 0.4: evidence %v, want 0.6 of the semantic term, %v", got, want)
	}
	if got, want := Relevance(Signals{PVec: 0.5, Unseen: 0.5}), 1-math.Pow(0.5, 0.5); !near(got, want) {
		t.Fatalf("unseen 0.5: relevance %v, want %v", got, want)
	}
}

func TestRarestShare(t *testing.T) {
	for _, tc := range []struct {
		holds bool
		words int
		want  float64
	}{
		{false, 10, 0},
		{true, 0, 0}, // a record of no words holds nothing
		{true, 1, 1},
		{true, ClaimWords, 1},
		{true, ClaimWords + 1, float64(ClaimWords) / float64(ClaimWords+1)},
		{true, 4 * ClaimWords, 0.25},
		{true, 100 * ClaimWords, 0.01},
	} {
		if got := RarestShare(tc.holds, tc.words); !near(got, tc.want) {
			t.Errorf("RarestShare(%v, %d) = %v, want %v", tc.holds, tc.words, got, tc.want)
		}
	}
}

func TestNovelty(t *testing.T) {
	for _, tc := range []struct{ novel, total, want float64 }{
		{0, 10, 0},      // every word is held by some record
		{2.5, 10, 0.25}, // a quarter of the information in unseen words
		{10, 10, 1},     // nothing the vault holds
		{3, 0, 0},       // no information: nothing to share
		{12, 10, 1},     // bounded
	} {
		if got := Novelty(tc.novel, tc.total); !near(got, tc.want) {
			t.Errorf("Novelty(%v, %v) = %v, want %v", tc.novel, tc.total, got, tc.want)
		}
	}
}
