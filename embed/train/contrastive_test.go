package train

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
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

func TestHardNegativesArePushedAway(t *testing.T) {
	// Each pair's hard negative is a word of its own, in no pair: only the
	// negative columns of the loss can push it away from the short side.
	train := func(withNeg bool) float64 {
		init := tinyModel(48, 16, 11)
		var pairs []tokPair
		for i := int32(0); i < 16; i++ {
			p := tokPair{a: []int32{i}, b: []int32{i + 16}}
			if withNeg {
				p.neg = []int32{i + 32}
			}
			pairs = append(pairs, p)
		}
		tab := newTable(init)
		opt := newSparseAdam(len(init.Words), init.Dim)
		cfg := ContrastiveConfig{LR: 0.05, Temperature: 0.05}
		for range 50 {
			tab.step(pairs, cfg, opt)
		}
		var s float64
		qa, qn := make([]float32, 16), make([]float32, 16)
		for i := int32(0); i < 16; i++ {
			tab.embed([]int32{i}, qa)
			tab.embed([]int32{i + 32}, qn)
			s += float64(dotf(qa, qn))
		}
		return s / 16
	}
	without, with := train(false), train(true)
	t.Logf("mean cos with negatives %.3f, without %.3f", with, without)
	if !(with < without-0.05) {
		t.Fatalf("mean cos(short side, its hard negative) %.3f with negatives, %.3f without: they are not pushed away", with, without)
	}
}

func TestMineHardNegativesSkipsNearerThanThePositive(t *testing.T) {
	init := tinyModel(8, 8, 5)
	tab := newTable(init)
	// Pair 1's long side is pair 0's own short side: for pair 0 it is nearer
	// than its positive (cos 1), so it must never be pair 0's negative.
	train := []tokPair{{a: []int32{0}, b: []int32{1}}, {a: []int32{2}, b: []int32{0}}, {a: []int32{3}, b: []int32{4}}}
	tab.mineHardNegatives(train, 8, rand.New(rand.NewPCG(1, 1)))
	if len(train[0].neg) == 1 && train[0].neg[0] == 0 {
		t.Fatal("pair 0 got its own short side as a hard negative")
	}
	for i, p := range train {
		if p.neg != nil && &p.neg[0] == &p.b[0] {
			t.Fatalf("pair %d got its own long side as a negative", i)
		}
	}
}

func TestExtendVocabularyKeepsOldRowsAndOrder(t *testing.T) {
	init := tinyModel(4, 8, 3) // words "w", "wx", "wxx", "wxxx"
	init.MinN, init.MaxN = 3, 4
	init.OOVWeight = 0.5
	for b := 0; b < 16; b++ {
		init.BucketScale = append(init.BucketScale, 0.01)
		for j := 0; j < 8; j++ {
			init.BucketVecs = append(init.BucketVecs, int8(b+j-8))
		}
	}
	pairs := []Pair{{A: "alpha alpha beta", B: "alpha port5432 w"}, {A: "beta gamma", B: "wx alpha"}}
	d, added := extendVocabulary(init, pairs, 2, 10, 0.5)
	if want := []string{"alpha", "beta"}; !slices.Equal(added, want) {
		t.Fatalf("added %q, want %q (used twice or more, letters only)", added, want)
	}
	if !slices.IsSorted(d.Words) || len(d.Words) != 6 {
		t.Fatalf("words %q: want the 4 old and 2 new in byte order", d.Words)
	}
	if _, err := d.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	for i, w := range init.Words {
		k := slices.Index(d.Words, w)
		if !slices.Equal(d.WordVecs[k*8:(k+1)*8], init.WordVecs[i*8:(i+1)*8]) || d.WordCoef[k] != init.WordCoef[i] {
			t.Fatalf("old word %q lost its row", w)
		}
	}
}
