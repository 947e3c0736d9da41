package embed

import (
	_ "embed"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"sync"
)

// StaticModelName names the bundled model in [ModelInfo].
const StaticModelName = "compartment-static-v1"

// staticModelFile is the bundled model, built by `make model` (see
// embed/MODEL.md). A string, so the bytes stay in the binary's read-only
// data and are paged in only as rows are touched.
//
//go:embed model/static-v1.bin
var staticModelFile string

// staticModelSum is the recorded SHA-256 of staticModelFile, written by
// `make model` beside it; a test keeps the two in step, so opening the model
// need not hash 15 MB.
//
//go:embed model/static-v1.sha256
var staticModelSum string

// OpenStatic loads the bundled static embedding model, the default when no
// other model is installed. The model is parsed once per process; every
// encoder returned shares it (it is immutable).
func OpenStatic() (Encoder, error) {
	return bundledStatic()
}

var bundledStatic = sync.OnceValues(func() (Encoder, error) {
	sum, err := hex.DecodeString(strings.TrimSpace(staticModelSum))
	if err != nil || len(sum) != 32 {
		return nil, fmt.Errorf("embed: bundled static model has a bad recorded SHA-256 %q", staticModelSum)
	}
	var pin [32]byte
	copy(pin[:], sum)
	enc, err := openStatic(staticModelFile, StaticModelName, pin)
	if err == nil {
		enc.(*staticEncoder).rows = newRowCache(staticModelFile)
	}
	return enc, err
})

// OpenStaticBytes loads a static model from the bytes of a model file (see
// FORMAT.md section 6), pinned by the given name and SHA-256. The trainer
// uses it to evaluate a model before it is bundled.
func OpenStaticBytes(file []byte, name string, sha256 [32]byte) (Encoder, error) {
	return openStatic(string(file), name, sha256)
}

func openStatic(file, name string, pin [32]byte) (Encoder, error) {
	v, err := parseStatic(file)
	if err != nil {
		return nil, err
	}
	return &staticEncoder{
		v: v,
		info: ModelInfo{
			Name:      name,
			SHA256:    pin,
			Dim:       v.dim,
			MaxTokens: WindowTokens,
			Pooling:   "sif",
		},
	}, nil
}

// staticEncoder pools word vectors: a window's vector is the SIF-weighted
// sum of its words' vectors (the common component already removed from
// every row by the trainer), L2-normalised. It is immutable, hence safe for
// concurrent use.
type staticEncoder struct {
	v    *staticView
	info ModelInfo
	rows *rowCache // the bundled model only: see [KeepStaticModelSmall]
}

func (e *staticEncoder) Info() ModelInfo { return e.info }

func (e *staticEncoder) Close() error { return nil }

// EmbedDocuments embeds each text as windows of [WindowTokens] words with
// stride [WindowStride]; words past [MaxWindows] windows are not embedded.
func (e *staticEncoder) EmbedDocuments(texts []string) ([]Document, error) {
	out := make([]Document, len(texts))
	for i, t := range texts {
		words := StaticWords(t)
		wins := Windows(len(words))
		doc := Document{Tokens: len(words), Windows: wins, Vectors: make([][]float32, len(wins))}
		for j, w := range wins {
			doc.Vectors[j] = e.pool(words[w[0]:w[1]])
		}
		out[i] = doc
	}
	return out, nil
}

// EmbedQuery embeds the first [WindowTokens] words of text (the model has
// no query prefix).
func (e *staticEncoder) EmbedQuery(text string) ([]float32, error) {
	words := StaticWords(text)
	if len(words) > WindowTokens {
		words = words[:WindowTokens]
	}
	return e.pool(words), nil
}

// pool returns the L2-normalised weighted sum of the words' vectors; a text
// with no known word and no n-gram gives the zero vector.
func (e *staticEncoder) pool(words []string) []float32 {
	v := e.v
	sum := make([]float32, v.dim)
	missed := false
	for _, w := range words {
		if i, ok := v.index.lookup(w); ok {
			addInt8(sum, e.rows.row(int(i), v.wordVecs, int(i), v.dim, &missed), v.coef[i])
			continue
		}
		e.addUnknown(sum, w, &missed)
	}
	e.rows.settle(missed)
	normalise(sum)
	return sum
}

// addUnknown adds an out-of-vocabulary word as the mean of its character
// n-gram bucket vectors, weighted by the model's OOV weight.
func (e *staticEncoder) addUnknown(sum []float32, w string, missed *bool) {
	v := e.v
	if v.buckets == 0 || v.oovWeight == 0 {
		return
	}
	var grams [64]int
	n := 0
	StaticNgramBuckets(w, v.minN, v.maxN, v.buckets, func(b int) {
		if n < len(grams) {
			grams[n] = b
			n++
		}
	})
	if n == 0 {
		return
	}
	share := v.oovWeight / float32(n)
	for _, b := range grams[:n] {
		addInt8(sum, e.rows.row(len(v.coef)+b, v.bucketVecs, b, v.dim, missed), share*v.bucketScale[b])
	}
}

// addInt8 adds c·row to sum, row being int8 values stored as bytes.
func addInt8(sum []float32, row string, c float32) {
	row = row[:len(sum)]
	for j := range sum {
		sum[j] += c * float32(int8(row[j]))
	}
}

func normalise(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(ss))
	for j := range v {
		v[j] *= inv
	}
}
