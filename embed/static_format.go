package embed

// The static model file (FORMAT.md section 6), little-endian throughout:
//
//	off  size          field
//	0    8             magic "CPSTATIC"
//	8    4  u32        version (1 or 2)
//	12   4  u32        dim D (1..1024)
//	16   4  u32        words V (≥ 1)
//	20   4  u32        buckets B (subword buckets, may be 0)
//	24   1  u8         minN, shortest character n-gram
//	25   1  u8         maxN, longest character n-gram
//	26   2             zero
//	28   4  f32        oovWeight, pooling weight of a word not in the vocabulary
//	32   4  u32        L, byte length of the word table
//	(version 2 only)
//	36   4  f32        idWeight, pooling weight of an identifier unit
//	36|40 L            word table: V × (uvarint length, UTF-8 bytes), strictly
//	                   increasing byte order
//	     V×4   f32     word coefficient: pooling weight × dequantisation scale
//	     B×4   f32     bucket dequantisation scale
//	     V×D   i8      word vectors, row-major
//	     B×D   i8      bucket vectors, row-major
//
// Nothing follows the last bucket row. A sentence vector is
// Σ coef[w]·row[w] over its words (an unknown word contributes
// oovWeight·mean over its n-gram buckets of scale[b]·row[b]), L2-normalised.
// In a version 2 file, an unknown word holding a digit (a number, an
// identifier) adds idWeight times a unit vector of its own instead
// ([staticIdentifierVector]), so "5432" and "5433" differ.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// Part of the format: do not change.
const (
	staticMagic      = "CPSTATIC"
	staticVersion1   = 1
	staticVersion2   = 2
	staticHeaderSize = 36 // version 1; version 2 adds 4 bytes
	staticMaxDim     = 1024
)

// ErrBadStaticModel reports a static model file that is not well formed.
var ErrBadStaticModel = errors.New("embed: malformed static model file")

// StaticModelData is the content of a static model file: what the trainer
// produces and [OpenStaticBytes] reads.
type StaticModelData struct {
	Dim         int
	MinN, MaxN  int       // character n-gram lengths of the subword buckets
	OOVWeight   float32   // pooling weight of a word not in Words
	IDWeight    float32   // pooling weight of an identifier unit; 0 = none (a version 1 file)
	Words       []string  // strictly increasing byte order
	WordCoef    []float32 // per word: pooling weight × dequantisation scale
	WordVecs    []int8    // len(Words) × Dim
	BucketScale []float32 // per bucket: dequantisation scale
	BucketVecs  []int8    // len(BucketScale) × Dim
}

// MarshalBinary encodes d in the static model file format.
func (d *StaticModelData) MarshalBinary() ([]byte, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	var table bytes.Buffer
	var tmp [binary.MaxVarintLen64]byte
	for _, w := range d.Words {
		table.Write(tmp[:binary.PutUvarint(tmp[:], uint64(len(w)))])
		table.WriteString(w)
	}
	out := make([]byte, 0, staticHeaderSize+4+table.Len()+4*(len(d.Words)+len(d.BucketScale))+len(d.WordVecs)+len(d.BucketVecs))
	out = append(out, staticMagic...)
	version := uint32(staticVersion1)
	if d.IDWeight != 0 {
		version = staticVersion2
	}
	out = binary.LittleEndian.AppendUint32(out, version)
	out = binary.LittleEndian.AppendUint32(out, uint32(d.Dim))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(d.Words)))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(d.BucketScale)))
	out = append(out, byte(d.MinN), byte(d.MaxN), 0, 0)
	out = binary.LittleEndian.AppendUint32(out, math.Float32bits(d.OOVWeight))
	out = binary.LittleEndian.AppendUint32(out, uint32(table.Len()))
	if version == staticVersion2 {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(d.IDWeight))
	}
	out = append(out, table.Bytes()...)
	for _, c := range d.WordCoef {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(c))
	}
	for _, c := range d.BucketScale {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(c))
	}
	for _, v := range d.WordVecs {
		out = append(out, byte(v))
	}
	for _, v := range d.BucketVecs {
		out = append(out, byte(v))
	}
	return out, nil
}

func (d *StaticModelData) check() error {
	switch {
	case d.IDWeight < 0 || math.IsNaN(float64(d.IDWeight)) || math.IsInf(float64(d.IDWeight), 0):
		return fmt.Errorf("embed: static model identifier weight %v invalid", d.IDWeight)
	case d.Dim < 1 || d.Dim > staticMaxDim:
		return fmt.Errorf("embed: static model dim %d out of range", d.Dim)
	case len(d.Words) == 0:
		return errors.New("embed: static model has no words")
	case len(d.WordCoef) != len(d.Words) || len(d.WordVecs) != len(d.Words)*d.Dim:
		return errors.New("embed: static model word arrays disagree in length")
	case len(d.BucketVecs) != len(d.BucketScale)*d.Dim:
		return errors.New("embed: static model bucket arrays disagree in length")
	case len(d.BucketScale) > 0 && (d.MinN < 1 || d.MaxN < d.MinN || d.MaxN > 255):
		return fmt.Errorf("embed: static model n-gram range %d..%d invalid", d.MinN, d.MaxN)
	}
	for i := 1; i < len(d.Words); i++ {
		if d.Words[i-1] >= d.Words[i] {
			return fmt.Errorf("embed: static model words not strictly increasing at %d", i)
		}
	}
	return nil
}

// staticView is a parsed static model file whose vectors stay in the file's
// bytes (a string, so an embedded model is never copied).
type staticView struct {
	dim, buckets int
	minN, maxN   int
	oovWeight    float32
	idWeight     float32
	index        wordIndex
	coef         []float32
	bucketScale  []float32
	wordVecs     string // V×D int8
	bucketVecs   string // B×D int8
}

// parseStatic validates and indexes a static model file.
func parseStatic(b string) (*staticView, error) {
	if len(b) < staticHeaderSize || b[:8] != staticMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrBadStaticModel)
	}
	u32 := func(off int) uint32 { return le32(b, off) }
	version := u32(8)
	if version != staticVersion1 && version != staticVersion2 {
		return nil, fmt.Errorf("%w: unknown version %d", ErrBadStaticModel, version)
	}
	header := staticHeaderSize
	if version == staticVersion2 {
		header += 4
		if len(b) < header {
			return nil, fmt.Errorf("%w: short header", ErrBadStaticModel)
		}
	}
	dim, nw, nb := int(u32(12)), int(u32(16)), int(u32(20))
	v := &staticView{dim: dim, buckets: nb, minN: int(b[24]), maxN: int(b[25])}
	v.oovWeight = math.Float32frombits(u32(28))
	tableLen := int(u32(32))
	if version == staticVersion2 {
		v.idWeight = math.Float32frombits(u32(36))
		if w := float64(v.idWeight); !(w > 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("%w: identifier weight %v", ErrBadStaticModel, v.idWeight)
		}
	}
	if dim < 1 || dim > staticMaxDim || nw < 1 || nw > 1<<24 || nb > 1<<24 {
		return nil, fmt.Errorf("%w: sizes dim=%d words=%d buckets=%d", ErrBadStaticModel, dim, nw, nb)
	}
	if nb > 0 && (v.minN < 1 || v.maxN < v.minN) {
		return nil, fmt.Errorf("%w: n-gram range %d..%d", ErrBadStaticModel, v.minN, v.maxN)
	}
	want := header + tableLen + 4*(nw+nb) + dim*(nw+nb)
	if tableLen < 0 || len(b) != want {
		return nil, fmt.Errorf("%w: length %d, header implies %d", ErrBadStaticModel, len(b), want)
	}
	var err error
	// The index reads a copy of the table, so looking a word up never
	// touches the model's mapped pages (see static_rows.go).
	if v.index, err = parseWordTable(strings.Clone(b[header:header+tableLen]), nw); err != nil {
		return nil, err
	}
	off := header + tableLen
	v.coef = readFloats(b[off:], nw)
	off += 4 * nw
	v.bucketScale = readFloats(b[off:], nb)
	off += 4 * nb
	v.wordVecs = b[off : off+nw*dim]
	off += nw * dim
	v.bucketVecs = b[off : off+nb*dim]
	return v, nil
}

// wordIndex finds a word's row: the model's word table is sorted, so a
// binary search over the words' offsets in one copy of the table answers
// it. A map would be faster by a few hundred nanoseconds a query and
// cost 1.7 MB of every process's heap.
type wordIndex struct {
	table string   // the words, each after its uvarint length
	start []uint32 // offset of word i's bytes in table
	end   []uint32
}

// lookup returns word w's row.
func (x *wordIndex) lookup(w string) (int32, bool) {
	lo, hi := 0, len(x.start)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if x.table[x.start[mid]:x.end[mid]] < w {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(x.start) && x.table[x.start[lo]:x.end[lo]] == w {
		return int32(lo), true
	}
	return 0, false
}

func parseWordTable(t string, n int) (wordIndex, error) {
	index := wordIndex{table: t, start: make([]uint32, n), end: make([]uint32, n)}
	prev := ""
	off := 0
	for i := 0; i < n; i++ {
		l, k := uvarintString(t[off:])
		if k <= 0 || l > uint64(len(t)-off-k) {
			return wordIndex{}, fmt.Errorf("%w: word table entry %d", ErrBadStaticModel, i)
		}
		w := t[off+k : off+k+int(l)]
		if (i > 0 && w <= prev) || !utf8.ValidString(w) {
			return wordIndex{}, fmt.Errorf("%w: word %d out of order or not UTF-8", ErrBadStaticModel, i)
		}
		index.start[i], index.end[i] = uint32(off+k), uint32(off+k+int(l))
		off += k + int(l)
		prev = w
	}
	if off != len(t) {
		return wordIndex{}, fmt.Errorf("%w: %d bytes after the word table", ErrBadStaticModel, len(t)-off)
	}
	return index, nil
}

func readFloats(b string, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(le32(b, 4*i))
	}
	return out
}

// le32 reads a little-endian uint32 at off without copying the string.
func le32(b string, off int) uint32 {
	_ = b[off+3]
	return uint32(b[off]) | uint32(b[off+1])<<8 | uint32(b[off+2])<<16 | uint32(b[off+3])<<24
}

// uvarintString is [binary.Uvarint] over a string: the value and the bytes
// read, or k ≤ 0 when the varint is truncated or overflows.
func uvarintString(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				return 0, -(i + 1)
			}
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

// ParseStaticModel decodes a static model file into its content, the
// inverse of [StaticModelData.MarshalBinary]. The trainer of a model that
// starts from another (compartment-static-v2 from v1) reads it this way.
func ParseStaticModel(b []byte) (*StaticModelData, error) {
	v, err := parseStatic(string(b))
	if err != nil {
		return nil, err
	}
	d := &StaticModelData{
		Dim: v.dim, MinN: v.minN, MaxN: v.maxN, OOVWeight: v.oovWeight, IDWeight: v.idWeight,
		Words:       make([]string, len(v.index.start)),
		WordCoef:    v.coef,
		WordVecs:    make([]int8, len(v.wordVecs)),
		BucketScale: v.bucketScale,
		BucketVecs:  make([]int8, len(v.bucketVecs)),
	}
	for i := range d.Words {
		d.Words[i] = v.index.table[v.index.start[i]:v.index.end[i]]
	}
	for i := range d.WordVecs {
		d.WordVecs[i] = int8(v.wordVecs[i])
	}
	for i := range d.BucketVecs {
		d.BucketVecs[i] = int8(v.bucketVecs[i])
	}
	return d, nil
}
