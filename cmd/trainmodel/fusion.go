package main

import (
	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/embed/train"
	"github.com/compartment/compartment/internal/search"
	"github.com/compartment/compartment/internal/vault"
)

// heldBackRanker ranks the held-back pairs through the product's search
// engine (internal/search), as train.FitSemanticWeight needs: every long
// side a record, every short side a query, under the calibration cal with
// its semantic weight set to the weight being tried.
func heldBackRanker(enc embed.Encoder, held []train.Pair, cal embed.Calibration) (train.RankAnswers, error) {
	long := make([]string, len(held))
	for i, p := range held {
		long[i] = p.B
	}
	docs, err := enc.EmbedDocuments(long)
	if err != nil {
		return nil, err
	}
	queries := make([][]float32, len(held))
	for i, p := range held {
		if queries[i], err = enc.EmbedQuery(p.A); err != nil {
			return nil, err
		}
	}
	dim := enc.Info().Dim
	return func(w float64) ([]int, error) {
		c := cal
		c.SemanticWeight = w
		e := search.NewWith(dim, search.Options{Calibration: vault.RankCalibration(c), Reads: embed.ReadsOf(enc)})
		defer e.Close()
		batch := make([]search.Doc, len(held))
		for i := range held {
			batch[i] = search.Doc{ID: uint32(i), Text: long[i], Windows: docs[i].Vectors,
				Meta: search.DocMeta{Seq: uint64(i), Importance: 0.5, Reference: true}}
		}
		if err := e.AddBatch(batch); err != nil {
			return nil, err
		}
		ranks := make([]int, len(held))
		for i, p := range held {
			res, err := e.Search(search.Query{Text: p.A, Vector: queries[i], TopK: 10})
			if err != nil {
				return nil, err
			}
			for r, x := range res {
				if x.Doc == uint32(i) && x.Score > 0 {
					ranks[i] = r + 1
					break
				}
			}
		}
		return ranks, nil
	}, nil
}
