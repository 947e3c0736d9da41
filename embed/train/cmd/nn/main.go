// Command nn prints a static model's nearest vocabulary words for each word
// given, and each word's pooling weight: a developer's look inside a model.
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"math"
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
	enc, err := embed.OpenStaticBytes(b, "nn", sha256.Sum256(b), embed.Calibration{})
	if err != nil {
		log.Fatal(err)
	}
	words := wordTable(b)
	vecs := make([][]float32, len(words))
	for i, w := range words {
		vecs[i], _ = enc.EmbedQuery(w)
	}
	coef := b[36+int(binary.LittleEndian.Uint32(b[32:])):]
	index := map[string]int{}
	for i, w := range words {
		index[w] = i
	}
	for _, w := range flag.Args() {
		q, _ := enc.EmbedQuery(w)
		order := make([]int, len(words))
		sims := make([]float64, len(words))
		for i := range words {
			order[i] = i
			for j := range q {
				sims[i] += float64(q[j]) * float64(vecs[i][j])
			}
		}
		sort.Slice(order, func(a, b int) bool { return sims[order[a]] > sims[order[b]] })
		weight := "oov"
		if i, ok := index[w]; ok {
			weight = fmt.Sprintf("coef %.4f", math.Float32frombits(binary.LittleEndian.Uint32(coef[4*i:])))
		}
		fmt.Printf("%s (%s):", w, weight)
		for _, i := range order[:*k] {
			fmt.Printf(" %s %.2f", words[i], sims[i])
		}
		fmt.Println()
	}
}

func wordTable(b []byte) []string {
	n := int(binary.LittleEndian.Uint32(b[16:]))
	t := b[36:]
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		l, k := binary.Uvarint(t)
		out = append(out, string(t[k:k+int(l)]))
		t = t[k+int(l):]
	}
	return out
}
