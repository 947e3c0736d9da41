package vault

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/compartment/compartment/internal/search"
	"github.com/compartment/compartment/vaultfmt"
)

// TestEncodePartsIsTheSplitEncoding: the parts a compaction writes
// straight from the segment are byte for byte the encoding cut into
// parts, at part sizes that end on, before and after the boundaries of
// the segment's pieces (ids, literal index, vector parts), and with the
// vectors whole or in pieces.
func TestEncodePartsIsTheSplitEncoding(t *testing.T) {
	defer func(n int) { segmentPartBytes = n }(segmentPartBytes)
	seg := &segment{epoch: 3, next: 9, snap: search.Snapshot{Literal: bytes.Repeat([]byte("lit"), 50)}}
	seg.model[0] = 7
	for i := range 40 {
		var id vaultfmt.ID
		id[0], id[15] = byte(i), byte(3*i)
		seg.ids, seg.docs = append(seg.ids, id), append(seg.docs, uint32(2*i))
	}
	for _, vec := range []search.Snapshot{{Vectors: bytes.Repeat([]byte{1, 2, 3}, 70)}, {VectorParts: [][]byte{{9, 8}, bytes.Repeat([]byte{5}, 99), {}, {4}}}} {
		seg.snap.Vectors, seg.snap.VectorParts = vec.Vectors, vec.VectorParts
		whole := seg.encode()
		if len(whole) != seg.encodedLen() {
			t.Fatalf("encode wrote %d bytes, encodedLen says %d", len(whole), seg.encodedLen())
		}
		for _, size := range []int{1, 7, segmentHeadSize, segmentHeadSize + segmentEntrySize, 100, len(whole) - 1, len(whole), len(whole) + 1, 1 << 20} {
			segmentPartBytes = size
			want, err := splitSegment(whole)
			if err != nil {
				t.Fatal(err)
			}
			got, err := seg.encodeParts()
			if err != nil {
				t.Fatalf("part size %d: %v", size, err)
			}
			if len(got) != len(want) {
				t.Fatalf("part size %d: %d parts, want %d", size, len(got), len(want))
			}
			for p := range want {
				if got[p].ID != want[p].ID || got[p].Kind != want[p].Kind || !bytes.Equal(got[p].Body, want[p].Body) {
					t.Fatalf("part size %d: part %d differs:\n got %x %s\nwant %x %s", size, p, got[p].ID, fmt.Sprint(got[p].Body), want[p].ID, fmt.Sprint(want[p].Body))
				}
			}
		}
	}
}
