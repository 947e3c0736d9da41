package embed

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// textTokenizer turns text into a model's token ids, without the special
// tokens the model wraps each sequence in ([CLS] … [SEP] for BERT).
type textTokenizer interface {
	// Encode returns the token ids of text and, for each token, the
	// [start, end) byte span of text it came from.
	Encode(text string) (ids []int32, spans [][2]int, err error)
	// Specials are the ids that open and close a sequence and fill padding.
	Specials() specialTokens
}

// specialTokens are the ids a sequence is framed and padded with.
type specialTokens struct {
	Open, Close, Pad int32
}

// hfTokenizerFile is the part of a HuggingFace tokenizer.json the fast path
// reads; the rest is left to github.com/sugarme/tokenizer.
type hfTokenizerFile struct {
	AddedTokens []struct {
		ID      int32  `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	Normalizer *struct {
		Type               string `json:"type"`
		CleanText          *bool  `json:"clean_text"`
		HandleChineseChars *bool  `json:"handle_chinese_chars"`
		StripAccents       *bool  `json:"strip_accents"`
		Lowercase          *bool  `json:"lowercase"`
	} `json:"normalizer"`
	PreTokenizer *struct {
		Type string `json:"type"`
	} `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Padding       *struct {
		PadID int32 `json:"pad_id"`
	} `json:"padding"`
	Model struct {
		Type                    string           `json:"type"`
		UnkToken                string           `json:"unk_token"`
		ContinuingSubwordPrefix *string          `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int              `json:"max_input_chars_per_word"`
		Vocab                   json.RawMessage  `json:"vocab"`
		vocab                   map[string]int32 `json:"-"`
	} `json:"model"`
}

// loadTokenizer reads a HuggingFace tokenizer.json. BERT-style WordPiece
// tokenizers (bge, MiniLM, every BERT-uncased derivative) take a native
// path: github.com/sugarme/tokenizer v0.3.0 spends about 330 µs on a
// 100-character sentence here and maps accented words ("café") to [UNK]
// where HuggingFace strips the accent, so it is kept for the other model
// types only.
func loadTokenizer(path string) (textTokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("embed: read tokenizer: %w", err)
	}
	var f hfTokenizerFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("embed: parse tokenizer %s: %w", path, err)
	}
	specials, err := f.specials()
	if err != nil {
		return nil, fmt.Errorf("embed: tokenizer %s: %w", path, err)
	}
	if f.isBertWordPiece() {
		wp, err := newWordPiece(&f, specials)
		if err != nil {
			return nil, fmt.Errorf("embed: tokenizer %s: %w", path, err)
		}
		return wp, nil
	}
	return newHFTokenizer(path, specials)
}

// isBertWordPiece reports whether the file describes the classic BERT
// pipeline the native tokenizer implements exactly.
func (f *hfTokenizerFile) isBertWordPiece() bool {
	return f.Model.Type == "WordPiece" &&
		f.Normalizer != nil && f.Normalizer.Type == "BertNormalizer" &&
		f.PreTokenizer != nil && f.PreTokenizer.Type == "BertPreTokenizer"
}

// specials finds the ids that frame a single sequence, from the post
// processor (TemplateProcessing, BertProcessing or RobertaProcessing).
func (f *hfTokenizerFile) specials() (specialTokens, error) {
	var s specialTokens
	if f.Padding != nil {
		s.Pad = f.Padding.PadID
	}
	var pp struct {
		Type   string `json:"type"`
		Single []struct {
			SpecialToken *struct {
				ID string `json:"id"`
			} `json:"SpecialToken"`
		} `json:"single"`
		SpecialTokens map[string]struct {
			IDs []int32 `json:"ids"`
		} `json:"special_tokens"`
		Cls []json.RawMessage `json:"cls"`
		Sep []json.RawMessage `json:"sep"`
	}
	if len(f.PostProcessor) == 0 || string(f.PostProcessor) == "null" {
		return s, fmt.Errorf("no post_processor: cannot tell which tokens frame a sequence")
	}
	if err := json.Unmarshal(f.PostProcessor, &pp); err != nil {
		return s, fmt.Errorf("post_processor: %w", err)
	}
	switch pp.Type {
	case "TemplateProcessing":
		n := len(pp.Single)
		if n < 3 || pp.Single[0].SpecialToken == nil || pp.Single[n-1].SpecialToken == nil {
			return s, fmt.Errorf("post_processor: single template is not <special> $A <special>")
		}
		open := pp.SpecialTokens[pp.Single[0].SpecialToken.ID].IDs
		close := pp.SpecialTokens[pp.Single[n-1].SpecialToken.ID].IDs
		if len(open) != 1 || len(close) != 1 {
			return s, fmt.Errorf("post_processor: special tokens must be one id each")
		}
		s.Open, s.Close = open[0], close[0]
	case "BertProcessing", "RobertaProcessing":
		var err error
		if s.Open, err = pairID(pp.Cls); err != nil {
			return s, fmt.Errorf("post_processor cls: %w", err)
		}
		if s.Close, err = pairID(pp.Sep); err != nil {
			return s, fmt.Errorf("post_processor sep: %w", err)
		}
	default:
		return s, fmt.Errorf("post_processor %q is not supported", pp.Type)
	}
	return s, nil
}

// pairID reads the id out of a ["[CLS]", 101] pair.
func pairID(pair []json.RawMessage) (int32, error) {
	var id int32
	if len(pair) != 2 {
		return 0, fmt.Errorf("want [token, id]")
	}
	if err := json.Unmarshal(pair[1], &id); err != nil {
		return 0, err
	}
	return id, nil
}

// wordPiece is HuggingFace's BertNormalizer + BertPreTokenizer + WordPiece
// pipeline, written for speed: one pass over the text, no regular
// expressions, and byte spans into the original text for every token.
type wordPiece struct {
	vocab         map[string]int32
	unk           int32
	prefix        string // continuing-subword prefix, "##"
	maxWordRunes  int
	clean         bool
	chinese       bool
	stripAccents  bool
	lowercase     bool
	specials      specialTokens
	addedInText   []addedToken // matched verbatim in the raw text, longest first
	addedBracket  bool         // every added token contains '[' or '<'
	longestPieceB int          // longest vocabulary entry, in bytes
}

// addedToken is a token matched in raw text before normalisation ([CLS],
// [MASK], …), as HuggingFace does for added tokens.
type addedToken struct {
	content string
	id      int32
}

func newWordPiece(f *hfTokenizerFile, specials specialTokens) (*wordPiece, error) {
	if err := json.Unmarshal(f.Model.Vocab, &f.Model.vocab); err != nil {
		return nil, fmt.Errorf("WordPiece vocab: %w", err)
	}
	wp := &wordPiece{vocab: f.Model.vocab, prefix: "##", maxWordRunes: 100, specials: specials}
	if f.Model.ContinuingSubwordPrefix != nil {
		wp.prefix = *f.Model.ContinuingSubwordPrefix
	}
	if f.Model.MaxInputCharsPerWord > 0 {
		wp.maxWordRunes = f.Model.MaxInputCharsPerWord
	}
	unk, ok := wp.vocab[f.Model.UnkToken]
	if !ok {
		return nil, fmt.Errorf("unk token %q is not in the vocabulary", f.Model.UnkToken)
	}
	wp.unk = unk
	n := f.Normalizer
	wp.clean = n.CleanText == nil || *n.CleanText
	wp.chinese = n.HandleChineseChars == nil || *n.HandleChineseChars
	wp.lowercase = n.Lowercase == nil || *n.Lowercase
	// HuggingFace: strip_accents unset means "as lowercase says".
	wp.stripAccents = wp.lowercase
	if n.StripAccents != nil {
		wp.stripAccents = *n.StripAccents
	}
	for piece := range wp.vocab {
		wp.longestPieceB = max(wp.longestPieceB, len(piece))
	}
	for _, t := range f.AddedTokens {
		if t.Content != "" {
			wp.addedInText = append(wp.addedInText, addedToken{t.Content, t.ID})
		}
	}
	sort.Slice(wp.addedInText, func(i, j int) bool {
		return len(wp.addedInText[i].content) > len(wp.addedInText[j].content)
	})
	wp.addedBracket = true
	for _, t := range wp.addedInText {
		wp.addedBracket = wp.addedBracket && strings.ContainsAny(t.content, "[<")
	}
	return wp, nil
}

// Specials implements textTokenizer.
func (wp *wordPiece) Specials() specialTokens { return wp.specials }

// Encode implements textTokenizer.
func (wp *wordPiece) Encode(text string) ([]int32, [][2]int, error) {
	ids := make([]int32, 0, len(text)/3+4)
	spans := make([][2]int, 0, len(text)/3+4)
	emit := func(id int32, start, end int) {
		ids = append(ids, id)
		spans = append(spans, [2]int{start, end})
	}
	start := 0
	for start < len(text) {
		at, tok := wp.nextAdded(text, start)
		wp.encodePlain(text, start, at, emit)
		if tok == nil {
			break
		}
		emit(tok.id, at, at+len(tok.content))
		start = at + len(tok.content)
	}
	return ids, spans, nil
}

// nextAdded finds the first added token at or after from; it returns
// len(text) and nil when there is none.
func (wp *wordPiece) nextAdded(text string, from int) (int, *addedToken) {
	best, bestAt := (*addedToken)(nil), len(text)
	if wp.addedBracket && !strings.ContainsAny(text[from:], "[<") {
		return bestAt, nil
	}
	for i := range wp.addedInText {
		t := &wp.addedInText[i]
		if k := strings.Index(text[from:], t.content); k >= 0 && from+k < bestAt {
			best, bestAt = t, from+k
		}
	}
	return bestAt, best
}

// encodePlain normalises and pre-tokenises text[from:to] into words and
// emits the WordPiece tokens of each.
func (wp *wordPiece) encodePlain(text string, from, to int, emit func(id int32, start, end int)) {
	var word []byte   // the normalised word being collected
	var wordStart int // byte offset in text of its first rune
	var wordEnd int   // byte offset just past its last rune
	var buf [16]byte  // scratch for one normalised rune
	flush := func() {
		if len(word) > 0 {
			wp.pieces(word, wordStart, wordEnd, emit)
			word = word[:0]
		}
	}
	for i := from; i < to; {
		if c := text[i]; c < utf8.RuneSelf {
			// ASCII, nearly all text: one table lookup per byte.
			switch asciiClass[c] {
			case asciiDrop:
				if wp.clean {
					break // removed by clean_text
				}
				if unicode.IsSpace(rune(c)) {
					flush()
					break
				}
				if len(word) == 0 {
					wordStart = i
				}
				word = append(word, c)
				wordEnd = i + 1
			case asciiSpace:
				flush()
			case asciiPunct:
				flush()
				buf[0] = c
				wp.pieces(buf[:1], i, i+1, emit)
			default:
				if len(word) == 0 {
					wordStart = i
				}
				if wp.lowercase && 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				word = append(word, c)
				wordEnd = i + 1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:to])
		switch {
		case wp.clean && (r == 0 || r == utf8.RuneError && size == 1 || r == 0xFFFD || isControl(r)):
			// Dropped by clean_text.
		case unicode.IsSpace(r):
			flush()
		case isBertPunct(r) || wp.chinese && isCJK(r):
			flush()
			norm := wp.normaliseRune(r, buf[:0])
			if len(norm) > 0 {
				wp.pieces(norm, i, i+size, emit)
			}
		default:
			norm := wp.normaliseRune(r, buf[:0])
			if len(norm) > 0 {
				if len(word) == 0 {
					wordStart = i
				}
				word = append(word, norm...)
				wordEnd = i + size
			}
		}
		i += size
	}
	flush()
}

// normaliseRune applies strip_accents (NFD, then drop combining marks) and
// lowercase to one rune, appending the result to dst. A rune whose NFD
// form contains punctuation or spaces is rare enough to keep in the word.
func (wp *wordPiece) normaliseRune(r rune, dst []byte) []byte {
	if r < utf8.RuneSelf {
		if wp.lowercase && 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(dst, byte(r))
	}
	if !wp.stripAccents {
		if wp.lowercase {
			r = unicode.ToLower(r)
		}
		return utf8.AppendRune(dst, r)
	}
	var one [utf8.UTFMax]byte
	n := utf8.EncodeRune(one[:], r)
	decomposed := norm.NFD.Append(nil, one[:n]...)
	for len(decomposed) > 0 {
		d, size := utf8.DecodeRune(decomposed)
		decomposed = decomposed[size:]
		if unicode.Is(unicode.Mn, d) {
			continue
		}
		if wp.lowercase {
			d = unicode.ToLower(d)
		}
		dst = utf8.AppendRune(dst, d)
	}
	return dst
}

// pieces splits one normalised word by greedy longest-match-first against
// the vocabulary; a word with an unmatchable remainder, or longer than
// max_input_chars_per_word, becomes one unknown token. Every piece gets
// the word's span: normalisation can change byte lengths, so finer spans
// would be guesses.
func (wp *wordPiece) pieces(word []byte, start, end int, emit func(id int32, start, end int)) {
	if utf8.RuneCount(word) > wp.maxWordRunes {
		emit(wp.unk, start, end)
		return
	}
	var found [64]int32
	out := found[:0]
	key := make([]byte, 0, len(wp.prefix)+wp.longestPieceB)
	for pos := 0; pos < len(word); {
		stop := min(len(word), pos+wp.longestPieceB)
		matched := false
		for stop > pos {
			key = key[:0]
			if pos > 0 {
				key = append(key, wp.prefix...)
			}
			key = append(key, word[pos:stop]...)
			if id, ok := wp.vocab[string(key)]; ok {
				out = append(out, id)
				pos, matched = stop, true
				break
			}
			stop = lastRuneStart(word, pos, stop)
		}
		if !matched {
			emit(wp.unk, start, end)
			return
		}
	}
	for _, id := range out {
		emit(id, start, end)
	}
}

// lastRuneStart steps stop back by one rune, never below pos.
func lastRuneStart(word []byte, pos, stop int) int {
	stop--
	for stop > pos && !utf8.RuneStart(word[stop]) {
		stop--
	}
	return stop
}

// ASCII byte classes for the tokenizer's fast path.
const (
	asciiWord  = iota // letters, digits: part of a word
	asciiSpace        // splits words
	asciiPunct        // a token of its own
	asciiDrop         // control characters, removed by clean_text
)

// asciiClass classifies every ASCII byte the way the Unicode path would.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := rune(0); c < utf8.RuneSelf; c++ {
		switch {
		case c == 0 || isControl(c):
			t[c] = asciiDrop
		case unicode.IsSpace(c):
			t[c] = asciiSpace
		case isBertPunct(c):
			t[c] = asciiPunct
		default:
			t[c] = asciiWord
		}
	}
	return t
}()

// isControl is BERT's notion of a control character: category C*, except
// the whitespace characters tab, newline and carriage return.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// isBertPunct is BERT's punctuation: every non-alphanumeric ASCII symbol
// plus Unicode category P.
func isBertPunct(r rune) bool {
	if r >= 33 && r <= 47 || r >= 58 && r <= 64 || r >= 91 && r <= 96 || r >= 123 && r <= 126 {
		return true
	}
	return r >= utf8.RuneSelf && unicode.IsPunct(r)
}

// isCJK reports the CJK Unified Ideograph blocks BERT splits per character.
func isCJK(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF ||
		r >= 0x20000 && r <= 0x2A6DF || r >= 0x2A700 && r <= 0x2B73F ||
		r >= 0x2B740 && r <= 0x2B81F || r >= 0x2B820 && r <= 0x2CEAF ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0x2F800 && r <= 0x2FA1F
}
