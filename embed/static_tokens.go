package embed

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The static model's vocabulary units are lower-cased words. The trainer
// (embed/train) and the encoder both split text with [StaticWords], so a
// change here is a change of the model: retrain and re-pin.

// maxStaticWordBytes bounds one unit; longer runs (hashes, base64) are cut,
// since nothing useful is learned from their tails.
const maxStaticWordBytes = 48

// StaticWords splits text into the static model's units: maximal runs of
// letters and digits, lower-cased. An apostrophe inside a word is dropped
// ("don't" → "dont") except a possessive "'s", which is removed ("Max's" →
// "max"), so a name and its possessive share one vector.
func StaticWords(text string) []string {
	var out []string
	forEachStaticWord(text, func(w string) { out = append(out, w) })
	return out
}

// forEachStaticWord calls fn with each unit of text in order, without
// allocating the slice [StaticWords] returns.
func forEachStaticWord(text string, fn func(string)) {
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			w := b.String()
			if len(w) > maxStaticWordBytes {
				w = truncateUTF8(w, maxStaticWordBytes)
			}
			fn(w)
			b.Reset()
		}
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case isApostrophe(r) && b.Len() > 0 && i+size < len(text):
			next, nsize := utf8.DecodeRuneInString(text[i+size:])
			if !unicode.IsLetter(next) {
				flush()
				break
			}
			if (next == 's' || next == 'S') && !isWordRuneAt(text, i+size+nsize) {
				// Possessive: skip the "'s" and end the word.
				i += size + nsize
				flush()
				continue
			}
			// Contraction: drop the apostrophe and keep going.
		default:
			flush()
		}
		i += size
	}
	flush()
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' }

func isWordRuneAt(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func truncateUTF8(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// StaticNgramBuckets calls fn with the subword bucket of each character
// n-gram (minN ≤ n ≤ maxN runes) of "<word>", fastText style: a word missing
// from the vocabulary is the mean of its n-gram vectors. The hash is 32-bit
// FNV-1a over the n-gram's UTF-8 bytes, modulo buckets. Part of the model:
// do not change without retraining.
func StaticNgramBuckets(word string, minN, maxN, buckets int, fn func(bucket int)) {
	if buckets <= 0 {
		return
	}
	padded := "<" + word + ">"
	// Byte offsets of each rune start, plus the end.
	starts := make([]int, 0, len(padded)+1)
	for i := range padded {
		starts = append(starts, i)
	}
	starts = append(starts, len(padded))
	runes := len(starts) - 1
	for n := minN; n <= maxN; n++ {
		for s := 0; s+n <= runes; s++ {
			g := padded[starts[s]:starts[s+n]]
			fn(int(fnv1a(g) % uint32(buckets)))
		}
	}
}

func fnv1a(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}
