package fts

import "unicode/utf8"

// Words returns the words of text in order, every occurrence, cut and
// case-folded exactly as the index cuts them, without the parts and
// compounds [Tokens] adds: the word sequence a claim is compared by when
// a store decides whether two claims agree literally.
func Words(text string) []string {
	var out []string
	tokenize(text, func(term []byte, kind int) {
		if kind == kindWord {
			out = append(out, string(term))
		}
	})
	return out
}

// SameWord reports whether two case-folded words are forms of one word,
// by the rules the literal channel matches variants with: equal, one an
// irregular form of the other (buy/bought), or inflections of one word of
// at least [MinVariantPrefix] runes (doctor/doctors, shop/shopping; not
// even/event).
func SameWord(a, b string) bool {
	if a == b {
		return true
	}
	for _, f := range irregularForms[a] {
		if f == b {
			return true
		}
	}
	ka, okA := variantKey(a)
	kb, okB := variantKey(b)
	if !okA || !okB || ka != kb {
		return false
	}
	na, nb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
	return abs(na-nb) <= maxInflection && inflected(a, b)
}

// Holding returns the hits that matched query term i (Terms[i]), in no
// particular order, without sorting the result: how a caller finds the
// records holding a term that only a few records hold.
func (r *Result) Holding(i int) []Hit {
	if i < 0 || i >= 64 {
		return nil
	}
	var out []Hit
	for _, h := range r.hits {
		if h.Matched&(1<<uint(i)) != 0 {
			out = append(out, h)
		}
	}
	return out
}
