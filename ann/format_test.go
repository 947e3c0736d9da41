package ann

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// TestFormatExample keeps the worked example in FORMAT.md section 4.4
// true: the same index must serialise to the bytes shown there ("..."
// marks bytes the example does not spell out).
func TestFormatExample(t *testing.T) {
	h := NewHNSW(4, Options{M: 2})
	if err := h.Add(7, []float32{1, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if err := h.Add(9, []float32{0, 1, 0, 0}); err != nil {
		t.Fatal(err)
	}
	got, _ := h.MarshalBinary()
	want := strings.Join([]string{
		"63414e4e 01 02 01 00", "04000000", "204e0000", "0200 0000",
		"c8000000 00000000", "2174726170 6d6f63", "........ ........", "02000000",
		"0700000000000000", "0900000000000000", "........ ........",
		"7f000000 007f0000", "00000000", "00 00", "0100 01000000", "0100 00000000",
	}, "")
	want = strings.ReplaceAll(want, " ", "")
	if len(want) != 2*len(got) {
		t.Fatalf("got %d bytes, example has %d:\n%s", len(got), len(want)/2, hex.Dump(got))
	}
	for i := range got {
		w := want[2*i : 2*i+2]
		if w == ".." {
			continue
		}
		b, _ := hex.DecodeString(w)
		if !bytes.Equal(b, got[i:i+1]) {
			t.Fatalf("byte %d: got %02x, example says %s\n%s", i, got[i], w, hex.Dump(got))
		}
	}
}
