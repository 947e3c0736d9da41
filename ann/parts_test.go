package ann

import (
	"bytes"
	"errors"
	"testing"
)

// splitEvery cuts b into parts of size n (the last shorter), with an empty
// part between each two, as a caller may hand them.
func splitEvery(b []byte, n int) [][]byte {
	var parts [][]byte
	for len(b) > 0 {
		c := min(n, len(b))
		parts = append(parts, b[:c], nil)
		b = b[c:]
	}
	return parts
}

// unmarshalAgain is what idx marshals back to, or the error.
func unmarshalAgain(t *testing.T, parts [][]byte) ([]byte, error) {
	t.Helper()
	idx, err := UnmarshalParts(parts)
	if err != nil {
		return nil, err
	}
	if a, ok := idx.(*Auto); ok {
		a.Wait()
	}
	b, err := Marshal(idx)
	if err != nil {
		t.Fatal(err)
	}
	return b, nil
}

// TestUnmarshalParts reads every seed index split at every byte and into
// parts of every size up to 64: each must come back as the whole bytes do,
// a value straddling two parts included.
func TestUnmarshalParts(t *testing.T) {
	for k, b := range seedIndexes() {
		want, err := unmarshalAgain(t, [][]byte{b})
		if err != nil || !bytes.Equal(want, b) {
			t.Fatalf("index %d: whole bytes: %v", k, err)
		}
		for cut := 0; cut <= len(b); cut++ {
			if got, err := unmarshalAgain(t, [][]byte{b[:cut], b[cut:]}); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("index %d cut at %d: %v", k, cut, err)
			}
		}
		for n := 1; n <= 64; n++ {
			if got, err := unmarshalAgain(t, splitEvery(b, n)); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("index %d in parts of %d: %v", k, n, err)
			}
		}
	}
}

// TestUnmarshalPartsDamage: a truncated or lengthened index in parts is
// refused as the whole bytes are.
func TestUnmarshalPartsDamage(t *testing.T) {
	for k, b := range seedIndexes() {
		for _, bad := range [][]byte{b[:len(b)-1], b[:len(b)/2], append(append([]byte(nil), b...), 0)} {
			for n := 1; n <= 17; n += 4 {
				if _, err := UnmarshalParts(splitEvery(bad, n)); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("index %d (%d of %d bytes) in parts of %d: %v, want ErrCorrupt", k, len(bad), len(b), n, err)
				}
			}
		}
	}
}

// TestUnmarshalDuplicateKey: an index whose key list names one key twice
// is refused, exact and HNSW alike, whole or in parts.
func TestUnmarshalDuplicateKey(t *testing.T) {
	for k, b := range seedIndexes() {
		bad := append([]byte(nil), b...)
		copy(bad[headerSize+8:headerSize+16], bad[headerSize:headerSize+8]) // key 1 := key 0
		if _, err := Unmarshal(bad); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("index %d with a duplicate key: %v, want ErrCorrupt", k, err)
		}
		if _, err := UnmarshalParts(splitEvery(bad, 5)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("index %d with a duplicate key, in parts: %v, want ErrCorrupt", k, err)
		}
	}
}
