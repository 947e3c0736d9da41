package fts

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

func TestTokens(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string // must all be present
		not  []string // must all be absent
	}{
		{"foo_bar", []string{"foo_bar", "foo", "bar"}, nil},
		{"camelCase", []string{"camelcase", "camel", "case"}, nil},
		{"HTTPServer", []string{"httpserver", "http", "server"}, nil},
		{"released v1.2.3 today", []string{"v1.2.3", "v1", "released", "today"}, nil},
		{"commit a1b2c3d", []string{"a1b2c3d"}, []string{"a", "b", "c", "1"}},
		{"see /usr/local/bin.", []string{"usr/local/bin", "usr", "local", "bin"}, []string{"usr/local/bin.", "/usr/local/bin"}}, // a compound is trimmed to its words
		{"mail bob@example.com now", []string{"bob@example.com", "bob", "example.com", "example", "com"}, nil},
		{"https://github.com/foo/bar?x=1", []string{"https://github.com/foo/bar?x=1", "github.com", "foo", "bar"}, nil},
		{"(co-worker)", []string{"co-worker", "co", "worker"}, []string{"(co-worker)"}},
		{"it's the user's", []string{"it's", "user's", "user", "the"}, []string{"s"}},
		{"on 2023/05/20 at 10:30", []string{"2023/05/20", "2023", "05", "20", "10:30", "10", "30"}, nil},
		{"Ｆｕｌｌwidth ＡＢＣ", []string{"fullwidth", "abc"}, nil},               // NFKC
		{"Straße ÉCOLE naïve", []string{"strasse", "école", "naïve"}, nil}, // case folding
		{"utf8 python3", []string{"utf8", "utf", "python3", "python"}, nil},
		{"日本語のテキスト", []string{"日", "テキスト"}, nil},
		{"e.g., this", []string{"e.g", "this"}, []string{"e", "g"}},
	} {
		got := Tokens(tc.text)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("Tokens(%q) = %q: missing %q", tc.text, got, w)
			}
		}
		for _, w := range tc.not {
			if slices.Contains(got, w) {
				t.Errorf("Tokens(%q) = %q: has %q", tc.text, got, w)
			}
		}
	}
}

func TestTokensSkipsHugeTerms(t *testing.T) {
	blob := strings.Repeat("ab", MaxTermBytes)
	for _, tok := range Tokens("x " + blob + " y") {
		if len(tok) > MaxTermBytes {
			t.Fatalf("kept a %d-byte term", len(tok))
		}
	}
}

type emitted struct {
	term string
	kind int
}

func emissions(text string) []emitted {
	var out []emitted
	tokenize(text, func(t []byte, kind int) { out = append(out, emitted{string(t), kind}) })
	return out
}

// The ASCII fast path is UAX #29 restricted to ASCII: on any text it cuts
// exactly the words uniseg cuts.
func TestPropertyASCIIFastPathMatchesUniseg(t *testing.T) {
	alphabet := []rune("aZq09_.',:;-/@ \t\n!?()\"#$%&*+<=>[]\\^`{|}~")
	rapid.Check(t, func(t *rapid.T) {
		rs := rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 40).Draw(t, "runes")
		text := string(rs)
		fast := emissions(text)
		asciiFastPath = false
		slow := emissions(text)
		asciiFastPath = true
		if !slices.Equal(fast, slow) {
			t.Fatalf("text %q:\nfast path %v\nuniseg    %v", text, fast, slow)
		}
	})
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", "foo_bar camelCase", "a1b2c3d /usr/local/bin", "bob@example.com", "Ｆｕｌｌ", "e\u0301", "日本語", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, e := range emissions(text) {
			if e.term == "" || len(e.term) > 4*MaxTermBytes || !utf8.ValidString(e.term) && utf8.ValidString(text) {
				t.Fatalf("bad term %q from %q", e.term, text)
			}
		}
		// A query is cut like the document: every term of a text found in
		// an index of that text.
		x := New()
		x.Add(1, text)
		for _, tok := range Tokens(text) {
			if x.DF(tok) != 1 && len(Tokens(tok)) == 1 && Tokens(tok)[0] == tok {
				t.Fatalf("term %q of %q not found in its own index", tok, text)
			}
		}
	})
}

func TestWordsAndSameWord(t *testing.T) {
	got := Words("Tidvis is MIT-licensed, port 5433; Marcus's dog doesn't bark.")
	want := []string{"tidvis", "is", "mit", "licensed", "port", "5433", "marcus's", "dog", "doesn't", "bark"}
	if !slices.Equal(got, want) {
		t.Fatalf("Words = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"doctor", "doctors", true}, {"shop", "shopping", true}, {"buy", "bought", true},
		{"mornings", "morning", true}, {"even", "event", false}, {"week", "weekend", false},
		{"5433", "5432", false}, {"dark", "light", false}, {"go", "goes", true}, {"go", "gone", true}, {"on", "one", false},
	} {
		if got := SameWord(tc.a, tc.b); got != tc.same {
			t.Errorf("SameWord(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}
