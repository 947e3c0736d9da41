package devsync

import (
	"bytes"
	"testing"
)

// fuzzKeys is a fixed folder key, so the fuzzer can reach past the MACs
// when it keeps a valid prefix.
func fuzzKeys(t testing.TB) (*folderKeys, [16]byte) {
	k, err := deriveFolderKeys(bytes.Repeat([]byte{7}, 32), [16]byte{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	return k, [16]byte{9, 9, 9}
}

func seedLog(t testing.TB) []byte {
	k, dev := fuzzKeys(t)
	dir := t.TempDir()
	o := &ownLog{dir: dir, device: dev, k: k}
	ops := []Op{
		{Kind: OpStore, Device: dev, Clock: Clock{Wall: 5}, Target: [16]byte{1}, Payload: []byte{1, 1, 3, 'a', 'b', 'c'}},
		{Kind: OpTags, Device: dev, Clock: Clock{Wall: 6}, Target: [16]byte{1}, Payload: encodeTags([]string{"x", "yz"})},
		{Kind: OpImportance, Device: dev, Clock: Clock{Wall: 7}, Target: [16]byte{1}, Payload: encodeF64(0.9)},
		{Kind: OpShred, Device: dev, Clock: Clock{Wall: 8}, Target: [16]byte{1}},
	}
	if err := o.append(ops); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	b, err := readAllFile(o.path())
	if err != nil {
		t.Fatal(err)
	}
	buf.Write(b)
	return buf.Bytes()
}

// FuzzParseLog: the log decoder never panics, and what it accepts is
// consistent: every accepted op re-encodes to a payload of its shape, and
// the whole frames end inside the input.
func FuzzParseLog(f *testing.F) {
	seed := seedLog(f)
	f.Add(seed)
	f.Add(seed[:len(seed)-3])
	f.Add(seed[:logHeaderSize])
	f.Add([]byte("CMPSLOG1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		k, dev := fuzzKeys(t)
		st, err := parseLog("fuzz.log", b, k, dev)
		if err != nil {
			return
		}
		if st.end > int64(len(b)) || len(st.chains) != len(st.ops)+1 {
			t.Fatalf("end %d of %d bytes, %d chains for %d ops", st.end, len(b), len(st.chains), len(st.ops))
		}
		for i := range st.ops {
			if err := st.ops[i].checkPayload(); err != nil {
				t.Fatalf("accepted a malformed op: %v", err)
			}
			f := newFold()
			f.add(&st.ops[i])
		}
	})
}

// TestLogCorruptionNeverAccepted flips every byte of a valid log in turn:
// each flip is refused or, past the last whole frame, read as a partial
// copy; none yields different operations.
func TestLogCorruptionNeverAccepted(t *testing.T) {
	seed := seedLog(t)
	k, dev := fuzzKeys(t)
	good, err := parseLog("x", seed, k, dev)
	if err != nil {
		t.Fatal(err)
	}
	for i := range seed {
		b := append([]byte(nil), seed...)
		b[i] ^= 0x40
		st, err := parseLog("x", b, k, dev)
		if err != nil {
			continue
		}
		if len(st.ops) > len(good.ops) {
			t.Fatalf("flip at %d: more operations than written", i)
		}
		for j := range st.ops {
			if !bytes.Equal(encodeOp(&st.ops[j]), encodeOp(&good.ops[j])) {
				t.Fatalf("flip at %d: operation %d changed and was accepted", i, j)
			}
		}
		if len(st.ops) < len(good.ops) && !st.partial {
			t.Fatalf("flip at %d: operations lost without being reported", i)
		}
	}
}
