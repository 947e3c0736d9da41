package train

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compartment/compartment/embed"
)

func TestSoftmaxGradMatchesFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, 7)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 3)
	}
	g := make([]float32, len(x))
	loss := softmaxGrad(x, 1, len(x), 3, g, 1, 1)
	for k := range x {
		const h = 1e-2
		xp := append([]float32{}, x...)
		xp[k] += h
		lp := softmaxGrad(xp, 1, len(x), 3, make([]float32, len(x)), 1, 1)
		num := (lp - loss) / h
		if math.Abs(num-float64(g[k])) > 2e-2 {
			t.Fatalf("∂loss/∂x[%d] = %.4f, finite difference %.4f", k, g[k], num)
		}
	}
}

// tinyModel is a random static model of n words "w0".."w{n-1}".
func tinyModel(n, dim int, seed uint64) *embed.StaticModelData {
	rng := rand.New(rand.NewPCG(seed, 3))
	d := &embed.StaticModelData{Dim: dim}
	for i := 0; i < n; i++ {
		d.Words = append(d.Words, "w"+strings.Repeat("x", i)) // strictly increasing
		d.WordCoef = append(d.WordCoef, 0.01)
		for j := 0; j < dim; j++ {
			d.WordVecs = append(d.WordVecs, int8(rng.IntN(255)-127))
		}
	}
	return d
}

// trainTiny trains a tiny model to pair word i with word i+n/2 and returns
// validation recall@1 before and after, and the model file.
func trainTiny(t *testing.T) (before, after float64, file []byte) {
	init := tinyModel(64, 16, 7)
	var pairs []tokPair
	for i := int32(0); i < 32; i++ {
		pairs = append(pairs, tokPair{a: []int32{i}, b: []int32{i + 32}})
	}
	tab := newTable(init)
	cfg := ContrastiveConfig{Batch: 32, LR: 0.05, Temperature: 0.05}
	before = tab.recallAt1(pairs, 32)
	opt := newSparseAdam(len(init.Words), init.Dim)
	first := tab.step(pairs, cfg, opt)
	last := first
	for range 100 {
		last = tab.step(pairs, cfg, opt)
	}
	if !(last < first/2) {
		t.Fatalf("loss %.3f → %.3f: training does not learn the pairs", first, last)
	}
	after = tab.recallAt1(pairs, 32)
	b, err := tab.quantize(init).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return before, after, b
}

func TestContrastiveTrainingLearnsPairsDeterministically(t *testing.T) {
	before, after, b1 := trainTiny(t)
	if after < 0.9 || after <= before {
		t.Fatalf("recall@1 %.2f → %.2f, want ≥ 0.9 after training", before, after)
	}
	_, _, b2 := trainTiny(t)
	if !bytes.Equal(b1, b2) {
		t.Fatal("two runs of the same training gave different model files")
	}
	// The file reads back, with the trained rows.
	d, err := embed.ParseStaticModel(b1)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := d.MarshalBinary(); !bytes.Equal(again, b1) {
		t.Fatal("ParseStaticModel then MarshalBinary does not give the same bytes")
	}
}

func TestSparseAdamLeavesUntouchedRowsAlone(t *testing.T) {
	init := tinyModel(10, 4, 9)
	tab := newTable(init)
	was := append([]float32{}, tab.u...)
	opt := newSparseAdam(10, 4)
	tab.step([]tokPair{{a: []int32{1}, b: []int32{2}}, {a: []int32{3}, b: []int32{4}}}, ContrastiveConfig{LR: 0.01, Temperature: 0.05}, opt)
	for w := 0; w < 10; w++ {
		moved := false
		for j := 0; j < 4; j++ {
			moved = moved || tab.u[w*4+j] != was[w*4+j]
		}
		if touched := w >= 1 && w <= 4; moved != touched {
			t.Fatalf("word %d moved=%v, touched=%v", w, moved, touched)
		}
	}
}

func TestDebianDescriptionPairs(t *testing.T) {
	dir := t.TempDir()
	idx := "Package: a\nDescription-md5: x\nDescription-en: fast text search\n lets you find\n .\n words quickly\n\nPackage: b\nDescription-en: no long part\n"
	if err := os.WriteFile(filepath.Join(dir, "Translation-en"), []byte(idx), 0o600); err != nil {
		t.Fatal(err)
	}
	var got [][2]string
	if err := debianDescriptionPairs(dir, func(a, b string) { got = append(got, [2]string{a, b}) }); err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"fast text search", "lets you find words quickly"}, {"no long part", ""}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("pairs %q, want %q", got, want)
	}
}

func TestClozePairsRemoveTheQuerySentence(t *testing.T) {
	para := "The river rose all night long. Farmers moved their cattle to high ground. By morning the bridge was gone. Nobody was hurt in the flood."
	mine := clozePairs(func(_ string, emit func(string)) error { emit(para); return nil })
	n := 0
	err := mine("/some/where/pkg/x", func(a, b string) {
		n++
		if !strings.Contains(para, a) || strings.Contains(b, a) || b == "" {
			t.Fatalf("query %q, context %q: the context must be the paragraph without the query", a, b)
		}
	})
	if err != nil || n != 1 {
		t.Fatalf("%d pairs, err %v; want one pair", n, err)
	}
}
