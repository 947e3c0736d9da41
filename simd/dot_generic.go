package simd

// The generic kernels are the reference every assembly tier is tested
// against, and the tier used on other architectures and with the purego or
// noasm build tags. Four independent accumulators let the CPU overlap the
// additions, so the reference is honest pure Go rather than a strawman.

// dotF32Generic is the reference loop of every float32 kernel:
//
//	for i, r := range rowsOrSequential {
//		out[i] = Σ_j q[j]·m[r·dim+j]
//	}
func dotF32Generic(q, m []float32, rows []uint32, out []float32) {
	dim := len(q)
	for i := range out {
		r := i
		if rows != nil {
			r = int(rows[i])
		}
		out[i] = dotF32Ref(q, m[r*dim:r*dim+dim])
	}
}

// dotI8Generic is the reference loop of every int8 kernel, with the same
// shape as [dotF32Generic] and int32 sums that wrap like the hardware's.
func dotI8Generic(q, m []int8, rows []uint32, out []int32) {
	dim := len(q)
	for i := range out {
		r := i
		if rows != nil {
			r = int(rows[i])
		}
		out[i] = dotI8Ref(q, m[r*dim:r*dim+dim])
	}
}

func dotF32Ref(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func dotI8Ref(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}
