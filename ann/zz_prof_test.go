package ann

import "testing"

func BenchmarkBuild10k(b *testing.B) {
	vecs := clustered(1, 10000, 384)
	for b.Loop() {
		h := NewHNSW(384, Options{})
		for i, v := range vecs {
			h.Add(uint64(i), v)
		}
	}
}
