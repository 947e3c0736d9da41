package embed

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"
)

// relatedPairs are word pairs people treat as related: synonyms first, then
// words that belong to one topic.
var relatedPairs = [][2]string{
	{"car", "automobile"}, {"buy", "purchase"}, {"doctor", "physician"}, {"big", "large"},
	{"small", "little"}, {"happy", "glad"}, {"begin", "start"}, {"end", "finish"},
	{"fast", "quick"}, {"house", "home"}, {"child", "kid"}, {"job", "work"},
	{"film", "movie"}, {"shop", "store"}, {"trip", "journey"}, {"sick", "ill"},
	{"money", "cash"}, {"talk", "speak"}, {"answer", "reply"}, {"help", "assist"},
	{"choose", "select"}, {"gift", "present"}, {"road", "street"}, {"rich", "wealthy"},
	{"angry", "mad"}, {"smart", "intelligent"}, {"hard", "difficult"}, {"easy", "simple"},
	{"mistake", "error"}, {"plane", "airplane"}, {"phone", "telephone"}, {"photo", "picture"},
	{"holiday", "vacation"}, {"sofa", "couch"}, {"boat", "ship"}, {"rock", "stone"},
	{"woman", "lady"}, {"dad", "father"}, {"mom", "mother"}, {"bike", "bicycle"},
	{"lawyer", "attorney"}, {"customer", "client"}, {"exam", "test"}, {"city", "town"},
	{"garbage", "trash"}, {"sad", "unhappy"}, {"salary", "wage"}, {"dog", "puppy"},
	{"flight", "airport"}, {"recipe", "cooking"}, {"gym", "exercise"}, {"guitar", "music"},
	{"coffee", "tea"}, {"doctor", "hospital"}, {"wedding", "marriage"}, {"apartment", "rent"},
}

// commonWords are everyday words the random comparison word is drawn from.
var commonWords = strings.Fields(`table window river mountain pencil cloud bread chair
	engine garden letter market number paper question school summer system village winter
	yellow animal bottle button candle carpet castle circle corner desert dinner dollar
	drawer energy family forest glass hammer island jacket kitchen ladder leather machine
	mirror needle office orange pocket potato rabbit ribbon saddle silver soldier sugar
	ticket tongue tunnel valley wagon weather wheel whistle wire yard blanket brick bucket
	cheese copper cotton feather finger flower hat iron lemon lock monkey nest oven pillow
	plate rope salt shoe snake spoon stamp star thread thumb tooth towel umbrella violin`)

// openForQuality opens the bundled model, or the model file named by
// COMPARTMENT_STATIC_MODEL when a developer is evaluating a candidate.
func openForQuality(t *testing.T) Encoder {
	t.Helper()
	path := os.Getenv("COMPARTMENT_STATIC_MODEL")
	if path == "" {
		return openBundled(t)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := OpenStaticBytes(b, "candidate", sha256.Sum256(b), Calibration{})
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

func sim(t *testing.T, enc Encoder, a, b string) float64 {
	t.Helper()
	va, _ := enc.EmbedQuery(a)
	vb, _ := enc.EmbedQuery(b)
	return cosine(va, vb)
}

// TestStaticRelatedWordPairs checks that, for at least 90% of the pairs, the
// pair's similarity beats that of the first word with each of three
// randomly drawn everyday words.
func TestStaticRelatedWordPairs(t *testing.T) {
	enc := openForQuality(t)
	rng := rand.New(rand.NewPCG(6, 6))
	pass := 0
	var failed []string
	for _, p := range relatedPairs {
		s := sim(t, enc, p[0], p[1])
		ok := true
		for k := 0; k < 3; k++ {
			r := commonWords[rng.IntN(len(commonWords))]
			if rs := sim(t, enc, p[0], r); rs >= s {
				ok = false
				failed = append(failed, fmt.Sprintf("%s/%s %.2f ≤ %s %.2f", p[0], p[1], s, r, rs))
			}
		}
		if ok {
			pass++
		}
	}
	rate := float64(pass) / float64(len(relatedPairs))
	t.Logf("%d/%d pairs beat three random words (%.0f%%); misses: %v", pass, len(relatedPairs), 100*rate, failed)
	if len(relatedPairs) < 40 || rate < 0.9 {
		t.Fatalf("only %.0f%% of %d pairs beat random words, want ≥ 90%%", 100*rate, len(relatedPairs))
	}
}

// paraphrases pair a stored memory with a question that shares few or no
// words with it.
var paraphrases = [][2]string{
	{"Moved the customer records from Airtable to Postgres", "what did Max decide about the CRM"},
	{"I adopted a golden retriever puppy last weekend", "when did I get my dog?"},
	{"Booked flights to Tokyo for the spring holiday", "where am I travelling on vacation?"},
	{"My physician told me to cut down on salt", "what did the doctor say about my diet?"},
	{"Started taking guitar lessons on Tuesday evenings", "which musical instrument am I learning?"},
	// Brand names ("Honda Civic") mean little to a model built without an
	// encyclopaedia (see MODEL.md); the car has to be named as one.
	{"Bought a used hatchback to drive to the office", "what automobile did I purchase?"},
	{"The dentist filled two cavities this morning", "what happened at my teeth appointment?"},
	{"We hiked to the summit and camped by the lake", "how was our mountain walk?"},
	{"My daughter starts kindergarten in September", "when does my kid begin school?"},
	{"Signed the lease on a two-bedroom flat downtown", "did I rent an apartment?"},
}

// distractorClaims builds n realistic short claims, deterministically, from
// everyday subjects, actions and times.
func distractorClaims(n int) []string {
	subjects := []string{"I", "We", "My sister", "Sam", "The team", "My neighbour", "Priya", "Dad", "My manager", "Lena"}
	actions := []string{
		"paid the electricity bill", "repainted the fence", "finished reading a mystery novel",
		"fixed the leaking kitchen tap", "ordered new running shoes", "planted tomatoes in the garden",
		"renewed the passport", "watched the football final", "baked sourdough bread",
		"changed the wifi password", "cleaned out the garage", "joined a book club",
		"wrote the quarterly report", "returned the library books", "set up a new printer",
		"called the insurance company", "sold the old lawn mower", "tried a new Thai restaurant",
		"knitted a scarf", "replaced the bathroom light bulb", "filed the tax return",
		"visited the art museum", "upgraded the laptop memory", "organised the closet",
		"went fishing at the lake", "learned to make espresso", "hosted a barbecue",
		"cancelled the magazine subscription", "bought a standing desk", "repaired the bicycle chain",
		"walked ten thousand steps", "painted a watercolour landscape", "fed the neighbour's cat",
		"recorded a podcast episode", "washed the windows", "switched to a new bank",
		"assembled a bookshelf", "took the recycling out", "backed up the family photos",
		"updated the budget spreadsheet",
	}
	times := []string{"yesterday", "on Monday", "last month", "this morning", "over the weekend", "in March", "after lunch", "two weeks ago"}
	rng := rand.New(rand.NewPCG(1000, 1))
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		c := fmt.Sprintf("%s %s %s", subjects[rng.IntN(len(subjects))], actions[rng.IntN(len(actions))], times[rng.IntN(len(times))])
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// TestStaticParaphraseRanksFirst stores each memory among 1,000 distractors
// and checks that its question ranks it first.
func TestStaticParaphraseRanksFirst(t *testing.T) {
	enc := openForQuality(t)
	distractors := distractorClaims(1000)
	docs, err := enc.EmbedDocuments(distractors)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paraphrases {
		mem, _ := enc.EmbedDocuments([]string{p[0]})
		q, _ := enc.EmbedQuery(p[1])
		target := cosine(q, mem[0].Vectors[0])
		var above []string
		for i, d := range docs {
			if c := cosine(q, d.Vectors[0]); c >= target {
				above = append(above, fmt.Sprintf("%q %.3f", distractors[i], c))
			}
		}
		sort.Strings(above)
		t.Logf("%q → rank %d of %d (cos %.3f)", p[1], len(above)+1, len(distractors)+1, target)
		if len(above) > 0 {
			t.Errorf("%q → %q (cos %.3f) ranks %d: beaten by %v", p[1], p[0], target, len(above)+1, above[:min(3, len(above))])
		}
	}
}
