// Command nn prints a static model's nearest vocabulary words for each word
// given, and each word's pooling weight: a developer's look inside a model.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"sort"

	"github.com/compartment/compartment/embed"
)

func main() {
	model := flag.String("model", "embed/model/static-v1.bin", "static model file")
	k := flag.Int("k", 8, "neighbours to print")
	flag.Parse()
	b, err := os.ReadFile(*model)
	if err != nil {
		log.Fatal(err)
	}
	if err := neighbours(os.Stdout, b, flag.Args(), *k); err != nil {
		log.Fatal(err)
	}
}

// neighbours prints, for each of words, its pooling weight and its k
// nearest vocabulary words in the static model file b.
func neighbours(out io.Writer, b []byte, words []string, k int) error {
	enc, err := embed.OpenStaticBytes(b, "nn", sha256.Sum256(b), embed.Calibration{})
	if err != nil {
		return err
	}
	// The file's own parser reads every format version (a hand-rolled
	// reader of version 1's offsets broke on version 2).
	data, err := embed.ParseStaticModel(b)
	if err != nil {
		return err
	}
	vocab := data.Words
	k = min(k, len(vocab))
	vecs := make([][]float32, len(vocab))
	for i, w := range vocab {
		vecs[i], _ = enc.EmbedQuery(w)
	}
	index := map[string]int{}
	for i, w := range vocab {
		index[w] = i
	}
	for _, w := range words {
		q, _ := enc.EmbedQuery(w)
		order := make([]int, len(vocab))
		sims := make([]float64, len(vocab))
		for i := range vocab {
			order[i] = i
			for j := range q {
				sims[i] += float64(q[j]) * float64(vecs[i][j])
			}
		}
		sort.Slice(order, func(a, b int) bool { return sims[order[a]] > sims[order[b]] })
		weight := "oov"
		if i, ok := index[w]; ok {
			weight = fmt.Sprintf("coef %.4f", data.WordCoef[i])
		}
		fmt.Fprintf(out, "%s (%s):", w, weight)
		for _, i := range order[:k] {
			fmt.Fprintf(out, " %s %.2f", vocab[i], sims[i])
		}
		fmt.Fprintln(out)
	}
	return nil
}
