package bench

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/compartment/compartment/simd"
)

// Vectors is a row-major matrix of unit vectors.
type Vectors struct {
	N, Dim int
	Data   []float32
}

// Row returns vector i (aliasing the matrix).
func (v *Vectors) Row(i int) []float32 { return v.Data[i*v.Dim : (i+1)*v.Dim] }

// Synthetic-data shape: sentence embeddings have a low intrinsic dimension
// and form topical clusters, so the vectors are a mixture of Gaussian
// clusters in a small latent space, mapped into dim dimensions by a fixed
// random matrix, plus a little isotropic noise, then L2-normalised.
const (
	latentDim      = 32
	latentClusters = 200
	clusterSpread  = 0.6
	isotropicNoise = 0.5
)

// ClusteredVectors returns n synthetic unit vectors. The stream is fixed
// by seed alone: the first n vectors of a larger request are the same.
// Queries come from the same distribution with another seed.
func ClusteredVectors(seed uint64, n, dim int) *Vectors {
	model := rand.New(rand.NewPCG(0x636f6d70, 0x61727421)) // one shared space for every seed
	proj := make([]float32, dim*latentDim)
	for i := range proj {
		proj[i] = float32(model.NormFloat64())
	}
	centres := make([]float64, latentClusters*latentDim)
	for i := range centres {
		centres[i] = model.NormFloat64()
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	out := &Vectors{N: n, Dim: dim, Data: make([]float32, n*dim)}
	z := make([]float64, latentDim)
	for i := range n {
		c := centres[rng.IntN(latentClusters)*latentDim:]
		for j := range z {
			z[j] = c[j] + clusterSpread*rng.NormFloat64()
		}
		v := out.Row(i)
		for d := range v {
			p := proj[d*latentDim : (d+1)*latentDim]
			var s float64
			for j, x := range z {
				s += float64(p[j]) * x
			}
			v[d] = float32(s + isotropicNoise*rng.NormFloat64())
		}
		simd.Normalize(v)
	}
	return out
}

// WriteNPY writes the matrix as a NumPy .npy file (version 1.0,
// little-endian float32, C order), which numpy.load reads directly.
func (v *Vectors) WriteNPY(path string) error {
	hdr := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", v.N, v.Dim)
	// Magic, version, header length, then the header padded with spaces
	// and a newline to a multiple of 64 bytes.
	pad := 64 - (10+len(hdr)+1)%64
	if pad == 64 {
		pad = 0
	}
	for range pad {
		hdr += " "
	}
	hdr += "\n"
	b := make([]byte, 0, 10+len(hdr)+4*len(v.Data))
	b = append(b, "\x93NUMPY\x01\x00"...)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(hdr)))
	b = append(b, hdr...)
	for _, x := range v.Data {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("bench: write %s: %w", path, err)
	}
	return nil
}
