package search

import (
	"testing"

	"github.com/compartment/compartment/rank"
)

func TestAskedKind(t *testing.T) {
	for _, c := range []struct {
		q    string
		want answerKind
	}{
		{"When is Henrik's birthday?", askTime},
		{"when does the holiday code freeze end", askTime},
		{"And when did we move?", askTime},
		{"What time does the school open in the morning?", askTime},
		{"Which day of the week is bin collection?", askTime},
		{"What date is the all-hands?", askTime},
		{"What time zone does the server use?", askAny},
		{"What's Henrik's birthday?", askTime},
		{"What is the deadline for the tax return?", askTime},
		{"What's the birthday present for Elin?", askAny},
		{"What did I do last week?", askAny},
		{"What's Elin's e-mail?", askIdentifier},
		{"How old is Lucía?", askSpan},
		{"How long should I rest between climbing sessions?", askSpan},
		{"How often was I on call back in spring 2025?", askSpan},
		{"How much time do I spend on code review each day?", askSpan},
		{"How tall is Clara now?", askQuantity},
		{"How big can my PR be if Johan is reviewing it?", askQuantity},
		{"How much protein is in an egg?", askQuantity},
		{"How much did the Crete trip cost?", askMoney},
		{"How much pocket money do the girls get?", askMoney},
		{"How many Marvel movies did I re-watch?", askAny},
		{"How many shards does the stream have?", askAny},
		{"How do I get onto the prod box?", askAny},
		{"What's the marina's gate code?", askIdentifier},
		{"What’s the Wi-Fi password at the summer house?", askAny},
		{"What's the discount code for the shop?", askIdentifier},
		{"What port does the parcel service's database listen on?", askIdentifier},
		{"Which port should apps use so their connections get pooled?", askIdentifier},
		{"What's the Swish MSS sandbox merchant number?", askIdentifier},
		{"What is the street address of the office?", askIdentifier},
		{"What's the number of open incidents?", askAny},
		{"What's the code of conduct?", askAny},
		{"What's the code review policy?", askAny},
		{"Which Kafka version runs in production?", askAny},
		{"Which Terraform version do we pin for the infra repo?", askVersion},
		{"What version of Go is the service built with?", askVersion},
		{"What is PM-0042?", askAny},
		{"Who wrote the Windows installer?", askAny},
		{"Where did we stay on São Miguel?", askAny},
		{"When I deploy, which port should I use?", askIdentifier},
		{"If Johan reviews it, how big can my PR be?", askQuantity},
		{"When the twins start school, who drives them?", askAny},
		{"when", askAny},
		{"", askAny},
	} {
		if got := askedKind(c.q); got != c.want {
			t.Errorf("askedKind(%q) = %q, want %q", c.q, got, c.want)
		}
	}
}

func TestHoldsKind(t *testing.T) {
	for _, c := range []struct {
		k    answerKind
		text string
		want bool
	}{
		{askTime, "Henrik Lindqvist, Marcus's younger brother, is an electrician in Oslo.", false},
		{askTime, "Henrik's birthday is on 3 May.", true},
		{askTime, "Mum usually calls on Sunday evenings.", true},
		{askTime, "The k6 load tests run against staging every Thursday.", true},
		{askTime, "Migrations run as a Kubernetes Job before each deploy.", true},
		{askTime, "The old checkout shuts down once the last merchants move.", true},
		{askSpan, "Rafael prefers tmux over terminal tabs for long sessions.", false},
		{askSpan, "Memcached at memcache-1.int.brisa.io:11211 holds the sessions.", false},
		{askSpan, "Rest two days between hard sessions.", true},
		{askSpan, "I've been coding for about an hour each day.", true},
		{askQuantity, "Clara is scared of dogs bigger than Bruno.", false},
		{askQuantity, "Clara is 1.32 m tall.", true},
		{askQuantity, "Johan asks for changes under 400 lines.", true},
		{askQuantity, "The brokers are kafka-1 to kafka-3 in fsn1.", false},
		{askMoney, "The family spent 10 days in Chania, Crete, in August 2025.", false},
		{askMoney, "The berth fee is 3,900 euros a year.", true},
		{askMoney, "The trip cost €2400.", true},
		{askMoney, "The twins each get 50 SEK a week.", true},
		{askIdentifier, "ruff and mypy in strict mode both gate the Python services in CI.", false},
		{askIdentifier, "The key safe opens with the code 7781.", true},
		{askIdentifier, "Feature flags are managed in Unleash at unleash.kassa.internal.", true},
		{askIdentifier, "The Wi-Fi password is 'sommarstuga'.", true},
		{askIdentifier, "The shop's discount code is SUMMER.", true},
		{askIdentifier, "Both gate the Python services in CI.", false},
		{askVersion, "Terraform state is kept in the bucket kassa-tfstate in fsn1.", false},
		{askVersion, "The infra repo pins Terraform 1.7.5.", true},
		{askVersion, "tidvis v0.9.0 added Quartz-style expressions.", true},
		{askVersion, "We always run the latest Terraform.", true},
		{askAny, "Anything at all.", true},
		{askAny, "", true},
	} {
		if got := holdsKind(c.k, c.text); got != c.want {
			t.Errorf("holdsKind(%v, %q) = %v, want %v", c.k, c.text, got, c.want)
		}
	}
}

// A record that shares the question's subject and holds nothing of the
// kind of answer it asks for is weak, however far it leads; the same
// record answers once it says when, and without the record texts the
// check is left out.
func TestAnswerLacksAskedKind(t *testing.T) {
	texts := map[uint32]string{}
	add := func(e *Engine, doc uint32, text string) {
		texts[doc] = text
		mustAdd(t, e, doc, text+" [from chat, 2025-08-30]", nil, DocMeta{Seq: uint64(doc)})
	}
	build := func(henrik string) *Engine {
		e := New(0)
		fill(t, e, 100, 40)
		add(e, 1, henrik)
		add(e, 2, "Daniel Okafor's birthday is 22 March.")
		add(e, 3, "Elin's birthday is 14 June.")
		return e
	}
	text := func(doc uint32) string { return texts[doc] }
	q := "When is Henrik's birthday?"
	e := build("Henrik Lindqvist, Marcus's younger brother, is an electrician in Oslo.")
	res := mustSearch(t, e, Query{Text: q, Explain: true, RecordText: text})
	if len(res) == 0 || res[0].Doc != 1 {
		t.Fatalf("%v, want the memory naming Henrik first", docsOf(res))
	}
	if !res[0].Explain.Lacks || res[0].Explain.Asks != "time" || res[0].Match != rank.MatchWeak {
		t.Errorf("the memory about Henrik's work: asks %q, lacks %v, %s (confidence %.3f); want time, lacking, weak",
			res[0].Explain.Asks, res[0].Explain.Lacks, res[0].Match, res[0].Confidence)
	}
	for _, r := range res {
		if r.Match != rank.MatchWeak {
			t.Errorf("doc %d is %s (confidence %.3f): no memory says when Henrik's birthday is", r.Doc, r.Match, r.Confidence)
		}
	}
	unchecked := mustSearch(t, e, Query{Text: q, Explain: true})
	if len(unchecked) == 0 || unchecked[0].Explain.Lacks || !(unchecked[0].Confidence > res[0].Confidence) {
		t.Errorf("without the record texts: %+v, want the check left out", unchecked)
	}
	answered := build("Henrik Lindqvist, Marcus's younger brother, has his birthday on 2 April.")
	got := mustSearch(t, answered, Query{Text: q, Explain: true, RecordText: text})
	if len(got) == 0 || got[0].Doc != 1 || got[0].Explain.Lacks || got[0].Match == rank.MatchWeak {
		t.Errorf("the memory saying when: %v (first %+v), want it first, not lacking, likely or strong", docsOf(got), got)
	}
}
