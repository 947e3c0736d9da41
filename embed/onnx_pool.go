package embed

import "math"

// poolRow turns one row of hidden states (width×dim, row-major) into one
// vector: "cls" takes the first position (the [CLS] token), "mean" averages
// the positions the attention mask marks as real, special tokens included,
// as sentence-transformers does.
func poolRow(hidden []float32, mask []int64, dim int, pooling string) []float32 {
	out := make([]float32, dim)
	if pooling == "cls" {
		copy(out, hidden[:dim])
		return out
	}
	var n float32
	for t, m := range mask {
		if m == 0 {
			continue
		}
		n++
		for d, x := range hidden[t*dim : (t+1)*dim] {
			out[d] += x
		}
	}
	if n > 0 {
		for d := range out {
			out[d] /= n
		}
	}
	return out
}

// normaliseL2 scales v to unit length in place; a zero vector stays zero.
func normaliseL2(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}
