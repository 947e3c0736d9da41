package embed

import (
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

var fixtureTokenizer struct {
	once sync.Once
	tok  textTokenizer
	err  error
}

// loadFixtureTokenizer loads the fixture's tokenizer once per test binary.
func loadFixtureTokenizer(t testing.TB) textTokenizer {
	t.Helper()
	fixtureTokenizer.once.Do(func() {
		fixtureTokenizer.tok, fixtureTokenizer.err = loadTokenizer(filepath.Join(fixtureDir, "tokenizer.json"))
	})
	if fixtureTokenizer.err != nil {
		t.Fatal(fixtureTokenizer.err)
	}
	if _, ok := fixtureTokenizer.tok.(*wordPiece); !ok {
		t.Fatalf("the BERT fixture should take the native WordPiece path, got %T", fixtureTokenizer.tok)
	}
	return fixtureTokenizer.tok
}

// referenceIDs is an independent, deliberately plain WordPiece for ASCII
// text: lower-case, split on spaces and punctuation, greedy longest match
// with "##" continuations, straight from the vocabulary file.
func referenceIDs(t testing.TB, vocab map[string]int32, text string) []int32 {
	t.Helper()
	var words []string
	var cur strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ' || r == '\t' || r == '\n':
			words, cur = appendWord(words, &cur), strings.Builder{}
		case strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", r):
			words, cur = appendWord(words, &cur), strings.Builder{}
			words = append(words, string(r))
		default:
			cur.WriteRune(r)
		}
	}
	words = appendWord(words, &cur)
	var ids []int32
	for _, w := range words {
		var pieces []int32
		for start := 0; start < len(w); {
			end := len(w)
			for ; end > start; end-- {
				key := w[start:end]
				if start > 0 {
					key = "##" + key
				}
				if id, ok := vocab[key]; ok {
					pieces = append(pieces, id)
					break
				}
			}
			if end == start {
				pieces = []int32{vocab["[UNK]"]}
				break
			}
			start = end
		}
		ids = append(ids, pieces...)
	}
	return ids
}

func appendWord(words []string, b *strings.Builder) []string {
	if b.Len() > 0 {
		words = append(words, b.String())
	}
	return words
}

func TestONNXTokenIDsMatchVocabulary(t *testing.T) {
	tok := loadFixtureTokenizer(t)
	vocab := fixtureVocab(t)
	sentences := []string{
		"Hello, world!",
		"The user prefers dark roast coffee in the morning and tea after lunch.",
		"Embeddings turn sentences into vectors; unbelievably, tokenization works.",
		"Deploy on 2026-03-01 at 09:30 (UTC) -- see ticket #4512.",
		"ALL CAPS and MixedCase words are lower-cased first",
		"xqzvbnmwrtp supercalifragilisticexpialidocious",
	}
	for _, s := range sentences {
		got, _, err := tok.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if want := referenceIDs(t, vocab, s); !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got  %v\n want %v", s, got, want)
		}
	}
	// Ids every bert-base-uncased user knows, as a check on the reference.
	got, _, _ := tok.Encode("hello world, [CLS] [SEP]!")
	if want := []int32{7592, 2088, 1010, 101, 102, 999}; !reflect.DeepEqual(got, want) {
		t.Errorf("well-known ids: got %v, want %v", got, want)
	}
	if s := tok.Specials(); s.Open != 101 || s.Close != 102 || s.Pad != 0 {
		t.Errorf("specials = %+v, want [CLS]=101 [SEP]=102 [PAD]=0", s)
	}
}

// TestONNXTokenizerNormalisesLikeHuggingFace covers what BertNormalizer
// does beyond ASCII: accents stripped (strip_accents follows lowercase),
// CJK ideographs split one per token, every Unicode space splits, control
// characters vanish.
func TestONNXTokenizerNormalisesLikeHuggingFace(t *testing.T) {
	tok := loadFixtureTokenizer(t)
	vocab := fixtureVocab(t)
	cases := []struct{ text, same string }{
		{"Café NAÏVE résumé", "cafe naive resume"},
		{"stop\u00a0me\u2003now", "stop me now"},
		{"a\u0000b\u200bc\x07d", "abcd"},
	}
	for _, c := range cases {
		got, _, _ := tok.Encode(c.text)
		if want := referenceIDs(t, vocab, c.same); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %v, want %v (as %q)", c.text, got, want, c.same)
		}
	}
	got, _, _ := tok.Encode("東京")
	if want := []int32{vocab["東"], vocab["京"]}; !reflect.DeepEqual(got, want) {
		t.Errorf("CJK: got %v, want %v", got, want)
	}
}

// TestONNXTokenizerAgreesWithSugarme cross-checks the native path with
// github.com/sugarme/tokenizer on ASCII text, where that library follows
// HuggingFace.
func TestONNXTokenizerAgreesWithSugarme(t *testing.T) {
	native := loadFixtureTokenizer(t)
	general, err := newHFTokenizer(filepath.Join(fixtureDir, "tokenizer.json"), native.Specials())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"Remember: the staging database moved to db-2.internal on Tuesday.",
		"I'd rather not; it's 3.14159 times \"bigger\" [sic] -- isn't it?",
		strings.Repeat("tokenization of repeated words ", 40),
	} {
		a, _, _ := native.Encode(s)
		b, _, err := general.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%q:\n native  %v\n sugarme %v", s, a, b)
		}
	}
}

// TestONNXTokenizerSpans checks that each word's pieces, spelled out,
// are the normalised text of the span they claim.
func TestONNXTokenizerSpans(t *testing.T) {
	tok := loadFixtureTokenizer(t)
	byID := map[int32]string{}
	for piece, id := range fixtureVocab(t) {
		byID[id] = piece
	}
	text := "Hello, Wörld! Tokenizers keep ÉCLAIRS and spans."
	ids, spans, _ := tok.Encode(text)
	if len(ids) != len(spans) {
		t.Fatalf("%d ids, %d spans", len(ids), len(spans))
	}
	fold := strings.NewReplacer("ö", "o", "é", "e", "É", "e")
	var words []string
	for i := 0; i < len(ids); {
		sp := spans[i]
		if sp[0] < 0 || sp[1] > len(text) || sp[0] >= sp[1] {
			t.Fatalf("span %d = %v out of range", i, sp)
		}
		var spelled strings.Builder
		for ; i < len(ids) && spans[i] == sp; i++ {
			spelled.WriteString(strings.TrimPrefix(byID[ids[i]], "##"))
		}
		want := strings.ToLower(fold.Replace(text[sp[0]:sp[1]]))
		if spelled.String() != want {
			t.Errorf("span %v: pieces spell %q, text is %q", sp, spelled.String(), want)
		}
		words = append(words, text[sp[0]:sp[1]])
	}
	if got := strings.Join(words, "|"); got != "Hello|,|Wörld|!|Tokenizers|keep|ÉCLAIRS|and|spans|." {
		t.Errorf("words = %s", got)
	}
}

func FuzzONNXTokenizer(f *testing.F) {
	tok := loadFixtureTokenizer(f)
	vocabSize := int32(len(fixtureVocab(f)))
	for _, s := range []string{"", "hello", "Café 東京 [MASK]", "a\u0000\xff\xfe", strings.Repeat("x", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ids, spans, err := tok.Encode(text)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != len(spans) {
			t.Fatalf("%d ids, %d spans", len(ids), len(spans))
		}
		for i, id := range ids {
			if id < 0 || id >= vocabSize {
				t.Fatalf("id %d out of vocabulary", id)
			}
			if sp := spans[i]; sp[0] < 0 || sp[1] > len(text) || sp[0] >= sp[1] {
				t.Fatalf("span %v of %d bytes", sp, len(text))
			}
		}
		if len(ids) == 0 && strings.IndexFunc(text, isASCIIAlnum) >= 0 {
			t.Fatalf("no tokens for %q", text)
		}
	})
}

func isASCIIAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}
