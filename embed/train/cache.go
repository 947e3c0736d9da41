package train

import (
	"encoding/gob"
	"fmt"
	"os"

	"github.com/compartment/compartment/embed"
)

// BuildCached is [Build] for developers: the first half's result is kept in
// the gob file basePath and reused while it exists, so tuning the second
// half (retrofitting, weights, subwords) takes seconds. `make model` never
// uses it.
func BuildCached(cfg Config, basePath string, logf func(string, ...any)) (*embed.StaticModelData, error) {
	var b *base
	if f, err := os.Open(basePath); err == nil {
		var g baseGob
		err = gob.NewDecoder(f).Decode(&g)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("train: read %s: %w", basePath, err)
		}
		b = g.base()
		logf("reusing %s", basePath)
	} else {
		if b, err = buildBase(cfg, logf); err != nil {
			return nil, err
		}
		f, err := os.Create(basePath)
		if err != nil {
			return nil, err
		}
		if err := gob.NewEncoder(f).Encode(toGob(b)); err != nil {
			f.Close()
			return nil, fmt.Errorf("train: write %s: %w", basePath, err)
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
	}
	return finish(cfg, b, logf)
}

// baseGob is base with exported fields, for encoding/gob.
type baseGob struct {
	Words      []string
	Counts     []int64
	IDs        []int32
	VWords     []string
	VCounts    []int64
	VProb      []float64
	FromID     []int32
	Spoken     map[string]float64
	Rows, Cols int
	Values     []float64
	Sigma      []float64
}

func toGob(b *base) baseGob {
	return baseGob{
		Words: b.Stream.words, Counts: b.Stream.counts, IDs: b.Stream.ids,
		VWords: b.Vocab.words, VCounts: b.Vocab.counts, VProb: b.Vocab.prob, FromID: b.Vocab.fromID,
		Spoken: b.Spoken, Rows: b.U.r, Cols: b.U.c, Values: b.U.a, Sigma: b.Sigma,
	}
}

func (g baseGob) base() *base {
	return &base{
		Stream: &tokenStream{words: g.Words, counts: g.Counts, ids: g.IDs},
		Vocab:  &vocab{words: g.VWords, counts: g.VCounts, prob: g.VProb, fromID: g.FromID},
		Spoken: g.Spoken,
		U:      dense{g.Rows, g.Cols, g.Values},
		Sigma:  g.Sigma,
	}
}
