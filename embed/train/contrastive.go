package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/compartment/compartment/embed"
)

// compartment-static-v2 is v1's table trained for retrieval: each text is
// the sum of its words' vectors, L2-normalised (exactly what the encoder
// computes), and the multiple-negatives ranking loss (Henderson et al.
// 2017) over a batch of mined pairs makes the cosine of a pair's two sides
// beat that of the side against every other pair's in the batch, in both
// directions. Only the rows a batch touches are updated (sparse Adam), so a
// word no pair uses keeps its v1 vector. Single pass order, fixed seeds,
// and every parallel loop writes rows of its own: the result is the same
// bytes on every run.

// ContrastiveConfig holds the knobs of the v2 training.
type ContrastiveConfig struct {
	Cache       string
	Batch       int
	Epochs      int
	LR          float64 // Adam step, relative to a unit-norm word vector
	Temperature float64
	HoldBack    int     // pairs kept out of training, for validation and calibration
	Dropout     float64 // share of each text's words dropped at random in each step
	Seed        uint64
	NewWords    int     // at most this many words outside v1's vocabulary get rows of their own
	NewWordMin  int     // ... if the training pairs use them at least this often
	NewWordQ    float64 // ... starting at this quantile of v1's word weights
	BySource    int     // 1: each batch holds pairs of one source (harder in-batch negatives)
	HardPool    int     // >0: each pair gets a hard negative, v1's nearest long side among this many others
	Mix         float64 // the shipped row is Mix·trained + (1−Mix)·v1 (weight-space ensembling; 1 = trained)
}

// DefaultContrastiveConfig is the configuration of the shipped v2 model.
func DefaultContrastiveConfig(cache string) ContrastiveConfig {
	return ContrastiveConfig{Cache: cache, Batch: 512, Epochs: 2, LR: 2e-3, Temperature: 0.05, HoldBack: 4096, Dropout: 0, Seed: 20261215, NewWordQ: 0.5, BySource: 1, Mix: 1}
}

// tokPair is a pair as vocabulary ids (out-of-vocabulary words dropped:
// their subword buckets are not trained).
type tokPair struct {
	a, b []int32
	src  int
	neg  []int32 // a hard negative for a (another pair's long side), or nil
}

// TrainContrastive trains v2 from the v1 model file's content and returns
// the new model and the held-back pairs (as text, for the calibration).
func TrainContrastive(cfg ContrastiveConfig, init *embed.StaticModelData, logf func(string, ...any)) (*embed.StaticModelData, []Pair, error) {
	start := time.Now()
	held, pairs, rng, err := splitPairs(cfg, logf)
	if err != nil {
		return nil, nil, err
	}
	init, added := extendVocabulary(init, pairs, cfg.NewWordMin, cfg.NewWords, cfg.NewWordQ)
	if len(added) > 0 {
		logf("vocabulary: %d words added", len(added))
	}
	srcIndex := map[string]int{}
	index := make(map[string]int32, len(init.Words))
	for i, w := range init.Words {
		index[w] = int32(i)
	}
	toks := func(ps []Pair) []tokPair {
		var out []tokPair
		for _, p := range ps {
			a, b := tokenIDs(index, p.A), tokenIDs(index, p.B)
			if len(a) > 0 && len(b) > 0 {
				if _, ok := srcIndex[p.Source]; !ok {
					srcIndex[p.Source] = len(srcIndex)
				}
				out = append(out, tokPair{a: a, b: b, src: srcIndex[p.Source]})
			}
		}
		return out
	}
	train, valid := toks(pairs), toks(held)
	logf("pairs: %d for training, %d held back (%.1fs)", len(train), len(valid), time.Since(start).Seconds())

	m := newTable(init)
	if cfg.HardPool > 0 {
		n := m.mineHardNegatives(train, cfg.HardPool, rng)
		logf("hard negatives: %d of %d pairs have one (pool %d, %.1fs)", n, len(train), cfg.HardPool, time.Since(start).Seconds())
	}
	logf("validation recall@1 (batches of %d) before: %.4f", cfg.Batch, m.recallAt1(valid, cfg.Batch))
	steps := cfg.Epochs * (len(train) / cfg.Batch)
	opt := newSparseAdam(len(init.Words), init.Dim)
	step := 0
	for ep := 0; ep < cfg.Epochs; ep++ {
		order := batchOrder(rng, train, cfg.Batch, cfg.BySource == 1)
		var lossSum float64
		var n int
		for b := 0; b+cfg.Batch <= len(order); b += cfg.Batch {
			batch := make([]tokPair, cfg.Batch)
			for i := range batch {
				p := train[order[b+i]]
				batch[i] = tokPair{dropWords(rng, p.a, cfg.Dropout), dropWords(rng, p.b, cfg.Dropout), p.src, p.neg}
			}
			lossSum += m.step(batch, cfg, opt)
			n++
			step++
			if step%20 == 0 || step == steps {
				logf("%s epoch %d loss %.4f  %.0fs", progressBar(step, steps), ep+1, lossSum/float64(n), time.Since(start).Seconds())
			}
		}
		logf("validation recall@1 after epoch %d: %.4f", ep+1, m.recallAt1(valid, cfg.Batch))
	}
	if cfg.Mix != 1 {
		// Weight-space ensembling (Wortsman et al. 2022, WiSE-FT): the
		// average of the start and the trained table keeps what v1 knew
		// that the pairs do not teach.
		u0 := newTable(init).u
		for k := range m.u {
			m.u[k] = float32(cfg.Mix)*m.u[k] + float32(1-cfg.Mix)*u0[k]
		}
		logf("mixed: %.2f trained + %.2f v1", cfg.Mix, 1-cfg.Mix)
	}
	return m.quantize(init), held, nil
}

// batchOrder is the order pairs are visited in: a random permutation, or,
// bySource, whole batches of one source each (a source's leftover shorter
// than a batch goes into mixed batches), the batches shuffled. Within one
// source the other pairs look alike (all package descriptions, all
// dictionary examples), so the model must learn what a pair shares, not
// which source it came from.
func batchOrder(rng *rand.Rand, train []tokPair, batch int, bySource bool) []int {
	order := rng.Perm(len(train))
	if !bySource {
		return order
	}
	var groups [][]int
	for _, i := range order {
		s := train[i].src
		for len(groups) <= s {
			groups = append(groups, nil)
		}
		groups[s] = append(groups[s], i)
	}
	var batches [][]int
	var rest []int
	for _, g := range groups {
		k := len(g) / batch * batch
		for b := 0; b < k; b += batch {
			batches = append(batches, g[b:b+batch])
		}
		rest = append(rest, g[k:]...)
	}
	for b := 0; b+batch <= len(rest); b += batch {
		batches = append(batches, rest[b:b+batch])
	}
	rng.Shuffle(len(batches), func(i, j int) { batches[i], batches[j] = batches[j], batches[i] })
	out := make([]int, 0, len(train))
	for _, b := range batches {
		out = append(out, b...)
	}
	return out
}

// splitPairs mines the pairs, shuffles them and splits off the held-back
// ones; it returns the generator, which goes on to order the batches.
func splitPairs(cfg ContrastiveConfig, logf func(string, ...any)) (held, train []Pair, rng *rand.Rand, err error) {
	pairs, err := minePairs(cfg.Cache, logf)
	if err != nil {
		return nil, nil, nil, err
	}
	rng = rand.New(rand.NewPCG(cfg.Seed, 1))
	rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	if len(pairs) < 2*cfg.HoldBack {
		return nil, nil, nil, fmt.Errorf("train: only %d pairs mined", len(pairs))
	}
	return pairs[:cfg.HoldBack], pairs[cfg.HoldBack:], rng, nil
}

// HeldBackPairs returns the pairs the training with cfg holds back (the
// same mining, shuffle and seed): the calibration material of a v2 model,
// for refitting its calibration without training again, and the pairs the
// semantic weight of every static model is fitted on. No static model
// before v2 trained on any mined pair, so for v1 they are as unseen as for
// v2.
func HeldBackPairs(cfg ContrastiveConfig, logf func(string, ...any)) ([]Pair, error) {
	held, _, _, err := splitPairs(cfg, logf)
	return held, err
}

// dropWords returns ids without a random share p of them (at least one
// kept): the same pair seen twice is seen in two ways, so the model cannot
// just memorise the rare word two sides share.
func dropWords(rng *rand.Rand, ids []int32, p float64) []int32 {
	if p <= 0 || len(ids) < 2 {
		return ids
	}
	out := make([]int32, 0, len(ids))
	for _, id := range ids {
		if rng.Float64() >= p {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		out = append(out, ids[rng.IntN(len(ids))])
	}
	return out
}

func progressBar(done, total int) string {
	const w = 30
	k := done * w / max(total, 1)
	return fmt.Sprintf("[%s%s] %d/%d", strings.Repeat("#", k), strings.Repeat("-", w-k), done, total)
}

func tokenIDs(index map[string]int32, text string) []int32 {
	var out []int32
	for _, w := range embed.StaticWords(text) {
		if i, ok := index[w]; ok {
			out = append(out, i)
		}
	}
	return out
}

// table is the trainable word table: u[w] = coef[w]·row[w], the word's
// vector with its pooling weight folded in, and lrScale[w], its pooling
// weight, so that Adam moves a word's direction at the same rate whatever
// its weight (the step is in units of a unit-norm vector).
type table struct {
	dim     int
	u       []float32
	lrScale []float32
}

func newTable(d *embed.StaticModelData) *table {
	t := &table{dim: d.Dim, u: make([]float32, len(d.WordVecs)), lrScale: make([]float32, len(d.Words))}
	for i := range d.Words {
		row := d.WordVecs[i*d.Dim : (i+1)*d.Dim]
		var ss float64
		for j, q := range row {
			t.u[i*d.Dim+j] = d.WordCoef[i] * float32(q)
			ss += float64(q) * float64(q)
		}
		t.lrScale[i] = d.WordCoef[i] * float32(math.Sqrt(ss))
	}
	return t
}

// embed pools ids into out (normalised) and returns the norm before
// normalising.
func (t *table) embed(ids []int32, out []float32) float32 {
	clear(out)
	for _, id := range ids {
		row := t.u[int(id)*t.dim : int(id+1)*t.dim]
		for j := range out {
			out[j] += row[j]
		}
	}
	var ss float64
	for _, x := range out {
		ss += float64(x) * float64(x)
	}
	n := float32(math.Sqrt(ss))
	if n > 0 {
		for j := range out {
			out[j] /= n
		}
	}
	return n
}

// parallelHalves runs fn over [0,n) split in two halves, one goroutine each;
// fn must write only what its indexes own.
func parallelHalves(n int, fn func(lo, hi int)) {
	var wg sync.WaitGroup
	mid := n / 2
	wg.Add(1)
	go func() { defer wg.Done(); fn(0, mid) }()
	fn(mid, n)
	wg.Wait()
}

func dotf(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// step does one batch: forward, the symmetric in-batch softmax loss, its
// gradient through the normalisation into the touched rows, and the Adam
// update. It returns the loss. The hard negatives of the batch, if any, are
// extra columns of the short → long softmax (every short side is pushed
// from all of them, as in-batch negatives).
func (t *table) step(batch []tokPair, cfg ContrastiveConfig, opt *sparseAdam) float64 {
	B, D := len(batch), t.dim
	// cols: the long sides (0..B-1), then the hard negatives.
	cols := make([][]int32, 0, 2*B)
	for _, p := range batch {
		cols = append(cols, p.b)
	}
	for _, p := range batch {
		if p.neg != nil {
			cols = append(cols, p.neg)
		}
	}
	C := len(cols)
	qa, qb := make([]float32, B*D), make([]float32, C*D)
	na, nb := make([]float32, B), make([]float32, C)
	parallelHalves(B, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			na[i] = t.embed(batch[i].a, qa[i*D:(i+1)*D])
		}
	})
	parallelHalves(C, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			nb[j] = t.embed(cols[j], qb[j*D:(j+1)*D])
		}
	})
	s := make([]float32, B*C) // s[i][j] = cos(a_i, col_j) / τ
	inv := float32(1 / cfg.Temperature)
	parallelHalves(B, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for j := 0; j < C; j++ {
				s[i*C+j] = inv * dotf(qa[i*D:(i+1)*D], qb[j*D:(j+1)*D])
			}
		}
	})
	// g[i][j] = ∂loss/∂s[i][j]: half row-softmax (a→b, all C columns),
	// half column (b→a, over the B short sides).
	g := make([]float32, B*C)
	var loss float64
	scale := 0.5 / float64(B)
	for i := 0; i < B; i++ {
		loss += scale * softmaxGrad(s[i*C:(i+1)*C], 1, C, i, g[i*C:], 1, scale)
	}
	for j := 0; j < B; j++ {
		loss += scale * softmaxGrad(s[j:], C, B, j, g[j:], C, scale)
	}
	// ∂/∂q_a[i] = Σ_j g[i][j]·inv·q_col[j]; ∂/∂q_col[j] = Σ_i g[i][j]·inv·q_a[i].
	ga, gb := make([]float32, B*D), make([]float32, C*D)
	parallelHalves(B, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out := ga[i*D : (i+1)*D]
			for j := 0; j < C; j++ {
				if c := g[i*C+j] * inv; c != 0 {
					axpyf(c, qb[j*D:(j+1)*D], out)
				}
			}
		}
	})
	parallelHalves(C, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			out := gb[j*D : (j+1)*D]
			for k := 0; k < B; k++ {
				if c := g[k*C+j] * inv; c != 0 {
					axpyf(c, qa[k*D:(k+1)*D], out)
				}
			}
		}
	})
	// Through the normalisation: ∂/∂sum = (g − (g·q)q)/|sum|; the sum's
	// gradient goes to every occurrence of every word, in a fixed order.
	back := func(q, gr []float32, n float32, ids []int32) {
		if n == 0 {
			return
		}
		p := dotf(gr, q)
		for j := range gr {
			gr[j] = (gr[j] - p*q[j]) / n
		}
		for _, id := range ids {
			opt.add(id, gr)
		}
	}
	for i := 0; i < B; i++ {
		back(qa[i*D:(i+1)*D], ga[i*D:(i+1)*D], na[i], batch[i].a)
		back(qb[i*D:(i+1)*D], gb[i*D:(i+1)*D], nb[i], cols[i])
	}
	for j := B; j < C; j++ {
		back(qb[j*D:(j+1)*D], gb[j*D:(j+1)*D], nb[j], cols[j])
	}
	opt.apply(t, float32(cfg.LR))
	return loss
}

// mineHardNegatives gives each training pair a hard negative: among pool
// other pairs (a window of a seeded permutation), the long side the
// current (v1) table puts nearest to the pair's short side, as long as it
// is clearly less near than the pair's own long side (< 0.9 of its cosine:
// a nearer one may well be a true answer, such as a sibling package's
// description). It returns how many pairs got one.
func (t *table) mineHardNegatives(train []tokPair, pool int, rng *rand.Rand) int {
	N, D := len(train), t.dim
	pool = min(pool, N-1)
	qa, qb := make([]float32, N*D), make([]float32, N*D)
	parallelHalves(N, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			t.embed(train[i].a, qa[i*D:(i+1)*D])
			t.embed(train[i].b, qb[i*D:(i+1)*D])
		}
	})
	perm := rng.Perm(N)
	offs := make([]int, N)
	for i := range offs {
		offs[i] = rng.IntN(N)
	}
	best := make([]int, N)
	parallelHalves(N, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a := qa[i*D : (i+1)*D]
			limit := 0.9 * dotf(a, qb[i*D:(i+1)*D])
			best[i] = -1
			bs := float32(math.Inf(-1))
			for k := 0; k < pool; k++ {
				j := perm[(offs[i]+k)%N]
				if j == i {
					continue
				}
				if c := dotf(a, qb[j*D:(j+1)*D]); c < limit && c > bs {
					bs, best[i] = c, j
				}
			}
		}
	})
	n := 0
	for i, j := range best {
		if j >= 0 {
			train[i].neg = train[j].b
			n++
		}
	}
	return n
}

// softmaxGrad adds to g (stride gs) scale·(softmax(x) − onehot(target))
// over the n values of x read with stride xs, and returns the
// cross-entropy −log p_target.
func softmaxGrad(x []float32, xs, n, target int, g []float32, gs int, scale float64) float64 {
	mx := float32(math.Inf(-1))
	for k := 0; k < n; k++ {
		mx = max(mx, x[k*xs])
	}
	var z float64
	for k := 0; k < n; k++ {
		z += math.Exp(float64(x[k*xs] - mx))
	}
	for k := 0; k < n; k++ {
		p := math.Exp(float64(x[k*xs]-mx)) / z
		if k == target {
			p--
		}
		g[k*gs] += float32(scale * p)
	}
	return -(float64(x[target*xs]-mx) - math.Log(z))
}

func axpyf(c float32, x, y []float32) {
	for i := range y {
		y[i] += c * x[i]
	}
}

// sparseAdam is Adam (Kingma & Ba 2015) whose moments are kept for every
// row but updated only for the rows a batch touched ("lazy" Adam).
type sparseAdam struct {
	dim     int
	m, v    []float32
	grad    []float32
	touched []int32
	mark    []bool
	t       int
}

func newSparseAdam(rows, dim int) *sparseAdam {
	return &sparseAdam{dim: dim, m: make([]float32, rows*dim), v: make([]float32, rows*dim),
		grad: make([]float32, rows*dim), mark: make([]bool, rows)}
}

func (o *sparseAdam) add(id int32, g []float32) {
	if !o.mark[id] {
		o.mark[id] = true
		o.touched = append(o.touched, id)
	}
	axpyf(1, g, o.grad[int(id)*o.dim:int(id+1)*o.dim])
}

func (o *sparseAdam) apply(t *table, lr float32) {
	const b1, b2, eps = 0.9, 0.999, 1e-8
	o.t++
	c1 := float32(1 - math.Pow(b1, float64(o.t)))
	c2 := float32(1 - math.Pow(b2, float64(o.t)))
	for _, id := range o.touched {
		lo, hi := int(id)*o.dim, int(id+1)*o.dim
		// Adam on the direction e = u/w: its gradient is w·g, and the
		// step on u is w times the step on e.
		w := t.lrScale[id]
		for k := lo; k < hi; k++ {
			gk := o.grad[k] * w
			o.m[k] = b1*o.m[k] + (1-b1)*gk
			o.v[k] = b2*o.v[k] + (1-b2)*gk*gk
			mh, vh := o.m[k]/c1, o.v[k]/c2
			t.u[k] -= w * lr * mh / (float32(math.Sqrt(float64(vh))) + eps)
			o.grad[k] = 0
		}
		o.mark[id] = false
	}
	o.touched = o.touched[:0]
}

// recallAt1 is the share of held-back pairs whose short side ranks its own
// long side first among the long sides of its batch.
func (t *table) recallAt1(ps []tokPair, batch int) float64 {
	D := t.dim
	hit, n := 0, 0
	for b := 0; b+batch <= len(ps); b += batch {
		qa, qb := make([]float32, batch*D), make([]float32, batch*D)
		for i := 0; i < batch; i++ {
			t.embed(ps[b+i].a, qa[i*D:(i+1)*D])
			t.embed(ps[b+i].b, qb[i*D:(i+1)*D])
		}
		for i := 0; i < batch; i++ {
			own := dotf(qa[i*D:(i+1)*D], qb[i*D:(i+1)*D])
			best := true
			for j := 0; j < batch && best; j++ {
				if j != i && dotf(qa[i*D:(i+1)*D], qb[j*D:(j+1)*D]) > own {
					best = false
				}
			}
			if best {
				hit++
			}
			n++
		}
	}
	return float64(hit) / float64(max(n, 1))
}

// quantize writes the trained table in v1's layout: the same words and
// subword buckets, each row int8 with its own scale (the pooling weight is
// now inside the row, so the coefficient is the scale alone). A number or
// identifier outside the vocabulary weighs as much as the median word
// (FORMAT.md section 6, version 2).
func (t *table) quantize(init *embed.StaticModelData) *embed.StaticModelData {
	d := *init
	d.WordCoef = make([]float32, len(init.Words))
	d.WordVecs = make([]int8, len(init.WordVecs))
	r := make([]float64, t.dim)
	norms := make([]float64, len(init.Words))
	for i := range init.Words {
		for j := range r {
			r[j] = float64(t.u[i*t.dim+j])
		}
		norms[i] = math.Sqrt(dot(r, r))
		q, scale := quantizeRow(r)
		copy(d.WordVecs[i*t.dim:], q)
		d.WordCoef[i] = float32(scale)
	}
	slices.Sort(norms)
	d.IDWeight = float32(Quantile(norms, 0.5))
	return &d
}
