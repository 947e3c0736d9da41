package embed

// ModelInfo describes a loaded model. SHA256 is the pin recorded in a
// vault's header: two encoders with the same SHA256 produce comparable
// vectors.
type ModelInfo struct {
	Name        string   // e.g. "compartment-static-v1", "bge-small-en-v1.5-int8"
	SHA256      [32]byte // pin: hash of the model's weights (and tokenizer)
	Dim         int      // vector length
	MaxTokens   int      // longest input the model reads in one window
	QueryPrefix string   // prepended to queries, "" when the model has none
	Pooling     string   // "cls", "mean" or "sif" (static)
	// Calibration says what the model's cosines mean (see [Calibration]);
	// the zero value is no calibration, and the product refuses the model.
	Calibration Calibration
}

// Document is one embedded text: a vector per token window, the token count
// of the whole text and the window boundaries (in model tokens).
type Document struct {
	Vectors [][]float32 // one L2-normalised vector per window, len ≥ 1
	Tokens  int         // model tokens in the whole text
	Windows [][2]int    // [start, end) token offsets of each window
}

// Encoder turns text into L2-normalised vectors. Implementations are safe
// for concurrent use.
type Encoder interface {
	// Info describes the model.
	Info() ModelInfo
	// EmbedDocuments embeds each text as overlapping token windows
	// (see [Windows]); a short text is one window.
	EmbedDocuments(texts []string) ([]Document, error)
	// EmbedQuery embeds one query with the model's query prefix, truncated
	// to the model's token limit.
	EmbedQuery(text string) ([]float32, error)
	// Close releases the model.
	Close() error
}

// Vocabulary is implemented by the encoders whose model has vectors for
// a closed list of words (the static models); a subword model reads every
// word and does not implement it.
type Vocabulary interface {
	// Reads reports whether the model has a trained vector for every word
	// of text, as it splits text into words.
	Reads(text string) bool
}

// ReadsOf returns enc's [Vocabulary.Reads], or nil when enc reads every
// word (or is nil).
func ReadsOf(enc Encoder) func(string) bool {
	if v, ok := enc.(Vocabulary); ok {
		return v.Reads
	}
	return nil
}

// Window sizes, in model tokens: part of the pin, do not change without a
// re-embed.
const (
	WindowTokens = 448 // W
	WindowStride = 384 // S: consecutive windows overlap by W−S = 64 tokens
	MaxWindows   = 64
)

// Windows returns the [start, end) token ranges covering n tokens:
// ceil(max(0, n−W)/S) + 1 windows of W tokens with stride S, capped at
// [MaxWindows]. n = 0 gives one empty window.
func Windows(n int) [][2]int {
	count := 1
	if n > WindowTokens {
		count = (n-WindowTokens+WindowStride-1)/WindowStride + 1
	}
	if count > MaxWindows {
		count = MaxWindows
	}
	out := make([][2]int, count)
	for i := range out {
		start := i * WindowStride
		end := min(start+WindowTokens, n)
		out[i] = [2]int{start, end}
	}
	return out
}
