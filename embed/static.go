package embed

import (
	_ "embed"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode"
)

// StaticModelName names the bundled model in [ModelInfo].
const StaticModelName = "compartment-static-v1"

// StaticV2ModelName names the bundled retrieval-trained model (see
// embed/MODEL.md), which [LoadOptions] selects by [StaticV2Model].
const StaticV2ModelName = "compartment-static-v2"

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

// staticModelCalibration is the bundled model's calibration (FORMAT.md
// section 6.2), fitted by `make model` from the model's own training
// material and bound to the model file by its SHA-256.
//
//go:embed model/static-v1.calibration.json
var staticModelCalibration string

// The retrieval-trained v2 model, its SHA-256 and calibration, written by
// `make model` like v1's.
//
//go:embed model/static-v2.bin
var staticV2ModelFile string

//go:embed model/static-v2.sha256
var staticV2ModelSum string

//go:embed model/static-v2.calibration.json
var staticV2ModelCalibration string

// OpenStatic loads the bundled static embedding model, the default when no
// other model is installed. The model is parsed once per process; every
// encoder returned shares it (it is immutable).
func OpenStatic() (Encoder, error) {
	return bundledStatic()
}

// OpenStaticV2 loads the bundled retrieval-trained model,
// compartment-static-v2, parsed once per process like [OpenStatic]'s.
func OpenStaticV2() (Encoder, error) {
	return bundledStaticV2()
}

var bundledStatic = sync.OnceValues(func() (Encoder, error) {
	return openBundledModel(StaticModelName, staticModelFile, staticModelSum, staticModelCalibration)
})

var bundledStaticV2 = sync.OnceValues(func() (Encoder, error) {
	return openBundledModel(StaticV2ModelName, staticV2ModelFile, staticV2ModelSum, staticV2ModelCalibration)
})

func openBundledModel(name, file, recordedSum, calibration string) (Encoder, error) {
	sum, err := hex.DecodeString(strings.TrimSpace(recordedSum))
	if err != nil || len(sum) != 32 {
		return nil, fmt.Errorf("embed: bundled model %s has a bad recorded SHA-256 %q", name, recordedSum)
	}
	var pin [32]byte
	copy(pin[:], sum)
	cal, err := ParseStaticCalibration([]byte(calibration), pin)
	if err != nil {
		return nil, fmt.Errorf("embed: bundled model %s: %w", name, err)
	}
	enc, err := openStatic(file, name, pin)
	if err != nil {
		return nil, err
	}
	enc.info.Calibration = cal
	// A bundled model's rows are read through a small cache (static_rows.go).
	enc.rows = newRowCache(file)
	return enc, nil
}

// OpenStaticBytes loads a static model from the bytes of a model file (see
// FORMAT.md section 6), pinned by the given name and SHA-256, with the
// given calibration (the zero value: none, which only the trainer wants,
// to embed the texts it fits a calibration on). The trainer uses it to
// evaluate a model before it is bundled.
func OpenStaticBytes(file []byte, name string, sha256 [32]byte, cal Calibration) (Encoder, error) {
	enc, err := openStatic(string(file), name, sha256)
	if err != nil {
		return nil, err
	}
	enc.info.Calibration = cal
	return enc, nil
}

func openStatic(file, name string, pin [32]byte) (*staticEncoder, error) {
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

// Reads implements [Vocabulary]: every word of text is in the model's
// vocabulary (an identifier unit or n-gram buckets are no trained vector
// of that word).
func (e *staticEncoder) Reads(text string) bool {
	words := StaticWords(text)
	for _, w := range words {
		if _, ok := e.v.index.lookup(w); !ok {
			return false
		}
	}
	return len(words) > 0
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
		if v.idWeight > 0 && hasDigit(w) {
			addIdentifier(sum, w, v.idWeight)
			continue
		}
		e.addUnknown(sum, w, &missed)
	}
	e.rows.settle(missed)
	normalise(sum)
	return sum
}

func hasDigit(w string) bool {
	for _, r := range w {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// addIdentifier adds c times the identifier unit of w: a unit vector drawn
// from a generator seeded by w's bytes (FORMAT.md section 6), so two
// identifiers share nothing unless they are the same string.
func addIdentifier(sum []float32, w string, c float32) {
	seed := uint64(14695981039346656037) // FNV-1a-64 of w
	for i := 0; i < len(w); i++ {
		seed ^= uint64(w[i])
		seed *= 1099511628211
	}
	var ss float64
	h := seed
	for range sum {
		x := identifierCoord(&h)
		ss += float64(x) * float64(x)
	}
	c /= float32(math.Sqrt(ss))
	h = seed
	for j := range sum {
		sum[j] += c * identifierCoord(&h)
	}
}

// identifierCoord is the next coordinate of an identifier unit: splitmix64
// from state h, its two 32-bit halves as signed fractions, summed. Part of
// the model: do not change.
func identifierCoord(h *uint64) float32 {
	*h += 0x9e3779b97f4a7c15
	z := *h
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float32(int32(uint32(z)))/(1<<31) + float32(int32(uint32(z>>32)))/(1<<31)
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
