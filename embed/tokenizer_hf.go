package embed

import (
	"fmt"
	"sync"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"
)

// hfTokenizer runs any tokenizer.json that github.com/sugarme/tokenizer
// understands (BPE, Unigram, WordPiece with other normalisers). It is the
// general path; BERT WordPiece files take the faster [wordPiece].
type hfTokenizer struct {
	mu       sync.Mutex // the library keeps per-call state in the tokenizer
	tk       *tokenizer.Tokenizer
	specials specialTokens
}

func newHFTokenizer(path string, specials specialTokens) (*hfTokenizer, error) {
	tk, err := pretrained.FromFile(path)
	if err != nil {
		return nil, fmt.Errorf("embed: load tokenizer %s: %w", path, err)
	}
	// Windows and padding are ours: the file's own settings (often
	// truncation at 128 or 512, fixed padding) would cut long texts.
	tk.WithTruncation(nil)
	tk.WithPadding(nil)
	return &hfTokenizer{tk: tk, specials: specials}, nil
}

// Specials implements textTokenizer.
func (h *hfTokenizer) Specials() specialTokens { return h.specials }

// Encode implements textTokenizer. The library's offsets are not reliably
// bytes or runes for non-ASCII text, so spans on this path are clamped
// approximations.
func (h *hfTokenizer) Encode(text string) ([]int32, [][2]int, error) {
	h.mu.Lock()
	en, err := h.tk.EncodeSingle(text, false)
	h.mu.Unlock()
	if err != nil {
		return nil, nil, fmt.Errorf("embed: tokenize: %w", err)
	}
	ids := make([]int32, len(en.Ids))
	spans := make([][2]int, len(en.Ids))
	for i, id := range en.Ids {
		ids[i] = int32(id)
		if i < len(en.Offsets) && len(en.Offsets[i]) == 2 {
			start := max(0, min(en.Offsets[i][0], len(text)))
			spans[i] = [2]int{start, max(start, min(en.Offsets[i][1], len(text)))}
		}
	}
	return ids, spans, nil
}
