package vault

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/compartment/compartment/internal/search"
	"github.com/compartment/compartment/simd"
)

// Vector encodings inside a record body. Part of the format: do not change.
const (
	vecInt8 = 1 // per window: f32 scale, then dim int8 values (value ≈ int8 · scale)
	vecF32  = 2 // per window: dim f32 values
)

// Vectors are a record's window embeddings, stored int8-quantised (the
// default) or as float32.
type Vectors struct {
	// Model is the first 8 bytes of the SHA-256 of the model that made
	// them: vectors from any other model than the vault's pin are ignored
	// (and re-embedded by reindex), never compared.
	Model  [8]byte
	Dim    int
	I8     [][]int8
	Scales []float32
	F32    [][]float32

	// A record's int8 windows, once indexed, live only in the search
	// engine (see vectors_shared.go): I8 and Scales are then nil, windows
	// counts them, and they are read back from engine under doc.
	windows int
	doc     uint32
	engine  *search.Engine
}

// Len is the number of windows.
func (v *Vectors) Len() int {
	switch {
	case v.F32 != nil:
		return len(v.F32)
	case v.engine != nil:
		return v.windows
	}
	return len(v.I8)
}

// Float32 returns the windows as float32 (dequantised when stored as int8).
func (v *Vectors) Float32() [][]float32 {
	if v.F32 != nil {
		return v.F32
	}
	i8, scales := v.int8Windows()
	out := make([][]float32, len(i8))
	for w, q := range i8 {
		f := make([]float32, len(q))
		for i, x := range q {
			f[i] = float32(x) * scales[w]
		}
		out[w] = f
	}
	return out
}

// newVectors stores windows as int8 (quantise) or float32.
func newVectors(model [32]byte, windows [][]float32, int8Storage bool) *Vectors {
	if len(windows) == 0 {
		return nil
	}
	v := &Vectors{Dim: len(windows[0])}
	copy(v.Model[:], model[:8])
	if !int8Storage {
		v.F32 = windows
		return v
	}
	for _, w := range windows {
		q := make([]int8, len(w))
		v.I8 = append(v.I8, q)
		v.Scales = append(v.Scales, simd.QuantizeI8(q, w))
	}
	return v
}

// own gives the int8 windows memory of their own, when they alias a
// decode scratch (decodeVectorsInto).
func (v *Vectors) own() {
	if v == nil || v.I8 == nil {
		return
	}
	codes := make([]int8, 0, len(v.I8)*v.Dim)
	for w, q := range v.I8 {
		codes = append(codes, q...)
		v.I8[w] = codes[len(codes)-len(q) : len(codes) : len(codes)]
	}
}

// encode writes: u8 encoding | [8]byte model | u16 dim | u16 windows |
// windows.
func (v *Vectors) encode() []byte {
	enc := byte(vecInt8)
	if v.F32 != nil {
		enc = vecF32
	}
	i8, scales := v.int8Windows()
	b := append([]byte{enc}, v.Model[:]...)
	b = binary.LittleEndian.AppendUint16(b, uint16(v.Dim))
	b = binary.LittleEndian.AppendUint16(b, uint16(v.Len()))
	for w := 0; w < v.Len(); w++ {
		if enc == vecF32 {
			for _, x := range v.F32[w] {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
			}
			continue
		}
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(scales[w]))
		for _, x := range i8[w] {
			b = append(b, byte(x))
		}
	}
	return b
}

func decodeVectors(b []byte) (*Vectors, error) { return decodeVectorsInto(b, nil) }

// decodeVectorsInto is decodeVectors putting the int8 codes of all windows
// in *scratch (grown as needed) when it is not nil, instead of in memory
// of their own: a replay whose index holds the same windows drops them
// at once (shareEarly), and a hundred thousand records' windows are then
// not allocated only to be collected.
func decodeVectorsInto(b []byte, scratch *[]int8) (*Vectors, error) {
	if len(b) < 13 {
		return nil, fmt.Errorf("%w: vectors header", errBody)
	}
	var model [8]byte
	copy(model[:], b[1:9])
	enc, dim, n := b[0], int(binary.LittleEndian.Uint16(b[9:])), int(binary.LittleEndian.Uint16(b[11:]))
	b = b[13:]
	per := 0
	switch enc {
	case vecInt8:
		per = 4 + dim
	case vecF32:
		per = 4 * dim
	default:
		return nil, fmt.Errorf("%w: unknown vector encoding %d", errBody, enc)
	}
	if dim == 0 || len(b) != per*n {
		return nil, fmt.Errorf("%w: vectors are %d bytes, want %d×%d", errBody, len(b), n, per)
	}
	v := &Vectors{Model: model, Dim: dim}
	var codes []int8
	if enc == vecInt8 {
		if scratch != nil {
			if cap(*scratch) < n*dim {
				*scratch = make([]int8, n*dim)
			}
			codes = (*scratch)[:n*dim]
		} else {
			codes = make([]int8, n*dim)
		}
	}
	for w := 0; w < n; w++ {
		chunk := b[w*per : (w+1)*per]
		if enc == vecF32 {
			f := make([]float32, dim)
			for i := range f {
				f[i] = math.Float32frombits(binary.LittleEndian.Uint32(chunk[4*i:]))
			}
			v.F32 = append(v.F32, f)
			continue
		}
		v.Scales = append(v.Scales, math.Float32frombits(binary.LittleEndian.Uint32(chunk)))
		q := codes[w*dim : (w+1)*dim : (w+1)*dim]
		for i := range q {
			q[i] = int8(chunk[4+i])
		}
		v.I8 = append(v.I8, q)
	}
	return v, nil
}
