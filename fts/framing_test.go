package fts

import (
	"slices"
	"strings"
	"testing"
)

func TestInflected(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"doctor", "doctors", true},
		{"attend", "attended", true},
		{"attended", "attending", true},
		{"participate", "participating", true},
		{"study", "studies", true},
		{"studied", "studies", true},
		{"shop", "shopping", true},
		{"shopping", "shops", true},
		{"plan", "planned", true},
		{"late", "later", true},
		{"later", "latest", true},
		{"clean", "cleaner", true},
		{"store", "stored", true},
		{"even", "event", false},
		{"events", "evening", false},
		{"week", "weekend", false},
		{"weeks", "weekend", false},
		{"friend", "friendly", false},
		{"relate", "relation", false},
		{"related", "relation", false},
		{"expenses", "expensive", false},
		{"latest", "lately", false},
		{"café", "cafè", false}, // common start stops inside a rune
	} {
		if got := inflected(tc.a, tc.b); got != tc.want {
			t.Errorf("inflected(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := inflected(tc.b, tc.a); got != tc.want {
			t.Errorf("inflected(%q, %q) = %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
}

// A query term finds other forms of its word at VariantWeight, and not a
// different word that merely starts the same way.
func TestVariantsInTheIndex(t *testing.T) {
	x := newIndex(map[uint32]string{
		1: "took both doctors to the airport",
		2: "the coffee was cold that evening",
		4: "a doctor appointment on monday",
		3: "shopping for a winter coat",
	})
	filler(x, 100, 40)
	checkStandIns(t, x, []standInCase{
		{"airport doctor", []uint32{1, 4}, "doctors"}, // 4 holds doctor only: an OR hit after the AND hit
		{"winter shops", []uint32{3}, "shopping"},
		{"events", nil, ""},
	})
}

// standInCase is a two-term query whose second term should match the
// first record found through the stand-in via, at VariantWeight.
type standInCase struct {
	query string
	want  []uint32
	via   string
}

func checkStandIns(t *testing.T, x *Index, cases []standInCase) {
	t.Helper()
	for _, tc := range cases {
		r := x.Search(tc.query)
		got := docs(x, r)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Search(%q) found %v, want %v", tc.query, got, tc.want)
			continue
		}
		if len(got) == 0 {
			continue
		}
		h := r.Top(1)[0]
		if !h.All {
			t.Errorf("Search(%q): the first hit is not an AND hit", tc.query)
		}
		if m := r.Explain(h); len(m) != 2 || m[1].Via != tc.via || m[1].Weight != VariantWeight {
			t.Errorf("Search(%q) explains %+v, want its second term via %q at %v", tc.query, m, tc.via, VariantWeight)
		}
	}
}

func TestWithoutFraming(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"What kitchen appliance did I buy 10 days ago?", "  kitchen appliance   I buy  ?"},
		{"I mentioned that I went to an art event two weeks ago. Where was it?", "  I went to an art event  .   was it?"},
		{"What did we talk about last Friday", "    we talk about  "},
		// Question words only where they open a sentence.
		{"When did I sell the Volvo?", "    I sell the Volvo?"},
		{"How many siblings do I have", "  siblings   I have"},
		// Do-support: the first do/does/did within three words of the
		// question word; a later "do" is the verb.
		{"what port does postgres use", "  port   postgres use"},
		{"what does grep do", "    grep do"},
		{"What did I do on Friday?", "    I do on Friday?"},
		{"Which of the old ports did they close", "  of the old ports did they close"},
		{"I do like tea. Do I?", "I do like tea. Do I?"},
		{"what's Kassa's port? who's on call", "  Kassa's port?   on call"},
		{"Did you book the hotel? Which one?", "Did you book the hotel?   one?"},
		{"the report on what we shipped", "the report on what we shipped"},
		{"the three trips I took in the past three months", "the three trips I took  "},
		{"money spent on my bike since the start of the year", "money spent on my bike  "},
		{"Do you remember what I've told you about the CRM", "    the CRM"},
		{"Can you remind me when the dentist is", "  the dentist is"},
		// Nothing but framing: the query stays as it was.
		{"yesterday", "yesterday"},
		{"two weeks ago?", "two weeks ago?"},
		// Words that only contain a framing word are kept.
		{"agora todays lastly", "agora todays lastly"},
		{"the last mile of the road", "the last mile of the road"},
	} {
		if got, _ := withoutFraming(tc.in); got != tc.want {
			t.Errorf("withoutFraming(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A question's framing does not match records: "two weeks ago" and
// "mentioned" are informative words, and without the rule the record that
// holds them would be an OR hit for a question about something else.
func TestFramingDoesNotMatch(t *testing.T) {
	x := newIndex(map[uint32]string{
		1: "bought a stand mixer for the kitchen",
		2: "the team mentioned the offsite was moved two weeks ago",
	})
	filler(x, 100, 40)
	r := x.Search("I mentioned a mixer I bought two weeks ago")
	if got := docs(x, r); !slices.Equal(got, []uint32{1}) {
		t.Fatalf("found %v, want only the mixer record 1", got)
	}
	if want := []string{"I mentioned", "two weeks ago"}; !slices.Equal(r.Framing, want) {
		t.Errorf("Framing = %q, want %q", r.Framing, want)
	}
	for _, qt := range r.Terms {
		if slices.Contains(strings.Fields("mentioned two weeks ago"), qt.Text) {
			t.Errorf("framing word %q became a query term", qt.Text)
		}
	}
	// Asked for on its own, a framing phrase is still searched.
	if got := docs(x, x.Search("two weeks ago")); !slices.Equal(got, []uint32{2}) {
		t.Errorf("\"two weeks ago\" found %v, want record 2", got)
	}
}

// withoutFraming only ever removes whole words: what it returns is the
// query itself, or the query's words in order with some left out and at
// least one kept.
func FuzzWithoutFraming(f *testing.F) {
	for _, s := range []string{
		"What kitchen appliance did I buy 10 days ago?",
		"Do you remember what I’ve told you about the CRM",
		"in the past couple of weeks", "yesterday", "a a a ago ago", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		got, phrases := withoutFraming(q)
		if got == q {
			if phrases != nil {
				t.Fatalf("withoutFraming(%q) left the query whole but reports %q", q, phrases)
			}
			return
		}
		for _, ph := range phrases {
			if !strings.Contains(q, ph) {
				t.Fatalf("withoutFraming(%q) reports %q, not in the query", q, ph)
			}
		}
		in, out := framingWords(q), framingWords(got)
		if len(out) == 0 || len(out) >= len(in) {
			t.Fatalf("withoutFraming(%q) = %q: kept %d of %d words", q, got, len(out), len(in))
		}
		j := 0
		for _, w := range in {
			if j < len(out) && out[j].text == w.text {
				j++
			}
		}
		if j != len(out) {
			t.Fatalf("withoutFraming(%q) = %q: not a subsequence of the query's words", q, got)
		}
	})
}

// An irregular form stands in for the others of its word, as a variant:
// "buy" finds "bought". The auxiliaries are not listed, so "did" does
// not find "done".
func TestIrregularForms(t *testing.T) {
	x := newIndex(map[uint32]string{
		1: "bought a stand mixer for the kitchen",
		2: "Max chose HubSpot for the sales team",
		3: "the migration is done",
	})
	filler(x, 100, 40)
	checkStandIns(t, x, []standInCase{
		{"mixer buy", []uint32{1}, "bought"},
		{"hubspot choose", []uint32{2}, "chose"},
		{"did", nil, ""},
	})
	for word, others := range irregularForms {
		if slices.Contains(others, word) || len(others) == 0 {
			t.Errorf("irregular form %q: others %v", word, others)
		}
	}
}
