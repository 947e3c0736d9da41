package simd

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"unsafe"
)

// pageEnd returns a buffer whose last byte is the last byte before a
// PROT_NONE page, so any kernel that reads past the end of a slice faults.
func pageEnd(t *testing.T) []byte {
	t.Helper()
	page := syscall.Getpagesize()
	b, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(b) })
	if err := syscall.Mprotect(b[page:], syscall.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	return b[:page]
}

func tailI8(b []byte, n int) []int8 {
	if n == 0 {
		return []int8{}
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&b[len(b)-n])), n)
}

func tailF32(b []byte, n int) []float32 {
	if n == 0 {
		return []float32{}
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[len(b)-4*n])), n)
}

// TestNoReadPastEnd places query and matrix flush against an unmapped page
// for every length: a kernel reading one byte too far crashes the test.
func TestNoReadPastEnd(t *testing.T) {
	bq, bm := pageEnd(t), pageEnd(t)
	forEachTier(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(15, 16))
		for n := 0; n <= 1024 && 4*n <= len(bq); n++ {
			q, m := tailI8(bq, n), tailI8(bm, n)
			copy(q, randI8(rng, n))
			copy(m, randI8(rng, n))
			if got, want := DotI8(q, m), dotI8Ref(q, m); got != want {
				t.Fatalf("int8 n=%d: %d, reference %d", n, got, want)
			}
			out := []int32{0}
			DotI8Gather(q, m, []uint32{0}, out)
			fq, fm := tailF32(bq, n), tailF32(bm, n)
			copy(fq, randF32(rng, n))
			copy(fm, randF32(rng, n))
			if got, want := DotF32(fq, fm), dotF32Ref(fq, fm); !f32Close(got, want, fq, fm) {
				t.Fatalf("float32 n=%d: %g, reference %g", n, got, want)
			}
		}
	})
}

// TestPrefetchChangesNothing prefetches slices of every length up to 64
// entries and single bytes, flush against an unmapped page (where PREFETCHT0 64 bytes on
// must not fault) and in the middle of a buffer: the bytes stay as they
// were.
func TestPrefetchChangesNothing(t *testing.T) {
	b := pageEnd(t)
	for i := range b {
		b[i] = byte(i * 7)
	}
	want := append([]byte(nil), b...)
	for n := 0; n <= 64; n++ {
		var tail []uint32
		if n > 0 {
			tail = unsafe.Slice((*uint32)(unsafe.Pointer(&b[len(b)-4*n])), n)
		}
		PrefetchUint32s(tail)
		PrefetchUint32s(unsafe.Slice((*uint32)(unsafe.Pointer(&b[4*n])), n))
		Prefetch(&b[len(b)-1-n])
		Prefetch(&b[n])
	}
	PrefetchUint32s(nil)
	for i := range b {
		if b[i] != want[i] {
			t.Fatalf("byte %d changed from %d to %d", i, want[i], b[i])
		}
	}
}
