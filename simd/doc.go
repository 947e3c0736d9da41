// Package simd owns the dot-product kernels (float32 and int8), L2
// normalisation and symmetric int8 quantisation, in Go assembly for amd64
// with a pure-Go twin for every kernel. The fastest tier the CPU supports is
// chosen once at start-up.
//
// It knows about slices of numbers and nothing else.
package simd
