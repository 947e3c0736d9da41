package vault

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"
)

// TestAuditChainKeepsBodies: the compact chain (rows, bodies rebuilt when
// read) answers like a map of decoded entries and stored bodies through
// puts, replaced positions and removals (the head's among them), whatever
// order they come in, and a batch forked from it extends the same head.
func TestAuditChainKeepsBodies(t *testing.T) {
	var c auditChain
	want := map[uint64]*AuditEntry{}
	bodies := map[uint64][]byte{}
	var head uint64
	r := rand.New(rand.NewPCG(3, 4))
	now := time.UnixMilli(1_700_000_000_000).UTC()
	for i := 0; i < 20000; i++ {
		switch pos := uint64(r.IntN(3000)) + 1; {
		case r.IntN(4) == 0:
			c.remove(pos)
			delete(want, pos)
			delete(bodies, pos)
		default:
			e := c.next(now.Add(time.Duration(i)*time.Millisecond), "agent", "store", idString(auditID(uint64(i))))
			e.Seq = pos // a body may claim any position; it is kept under its id
			if i%97 == 0 {
				e.Acknowledged = []uint64{pos, pos + 1}
			}
			e.Hash = e.computeHash()
			if err := c.add(auditID(pos), encodeAudit(e)); err != nil {
				t.Fatal(err)
			}
			want[pos], bodies[pos] = e, encodeAudit(e)
			head = max(head, pos)
		}
	}
	if c.len() != len(want) || c.head != head {
		t.Fatalf("holds %d entries, head %d; want %d, head %d", c.len(), c.head, len(want), head)
	}
	for pos, w := range want {
		got, ok := c.get(pos)
		if !ok || !reflect.DeepEqual(got, w) {
			t.Fatalf("entry %d: got %+v, want %+v", pos, got, w)
		}
	}
	if w, ok := want[head]; ok != c.headOK || ok && w.Hash != c.headHash {
		t.Fatalf("head hash kept %v %x, want %v", c.headOK, c.headHash, ok)
	}
	c.eachBody(func(pos uint64, body []byte) {
		if !bytes.Equal(body, bodies[pos]) {
			t.Fatalf("body %d: %x, want %x", pos, body, bodies[pos])
		}
	})
	prev := uint64(0)
	n := 0
	c.each(func(pos uint64, e *AuditEntry) {
		if pos <= prev && n > 0 || !reflect.DeepEqual(e, want[pos]) {
			t.Fatalf("each: %d after %d, %+v", pos, prev, e)
		}
		prev, n = pos, n+1
	})
	if n != len(want) {
		t.Fatalf("each visited %d of %d", n, len(want))
	}
	f := c.forkHead()
	a, b := c.next(now, "u", "store", "x"), f.next(now, "u", "store", "x")
	if a.Prev != b.Prev || a.Hash != b.Hash || a.Seq != head+1 {
		t.Fatalf("fork extends %+v, the chain %+v", b, a)
	}
	// The head removed: the next entry links to nothing, as before.
	c.remove(head)
	if e := c.next(now, "u", "store", "x"); e.Prev != ([32]byte{}) || e.Seq != head+1 {
		t.Fatalf("after removing the head: %+v", e)
	}
}

// TestAuditChainRefusesMalformedBody: a body that does not decode is
// refused when added, as the decoding at open refused it.
func TestAuditChainRefusesMalformedBody(t *testing.T) {
	var c auditChain
	e := c.next(time.Now().UTC(), "u", "store", "x")
	good := encodeAudit(e)
	for _, bad := range [][]byte{nil, {9}, good[:len(good)-3], append([]byte{bodyVersion, audHash, 3}, 1, 2, 3)} {
		if err := c.add(auditID(1), bad); err == nil {
			t.Fatalf("accepted %x", bad)
		}
	}
	if c.len() != 0 || c.headOK {
		t.Fatalf("a refused body was kept")
	}
	if err := c.add(auditID(1), good); err != nil || c.len() != 1 {
		t.Fatal(err)
	}
}

// TestAuditChainUnderConcurrentWriters (run it with -race): two handles
// store while readers of each walk the chain (audit log, verify, status);
// every handle then holds the same chain, entry for entry, as a fresh
// open does, and it verifies.
func TestAuditChainUnderConcurrentWriters(t *testing.T) {
	h := newHarness(t, nil)
	a, b := h.open("agent-a"), h.open("agent-b")
	const each = 20
	var wg sync.WaitGroup
	done := make(chan struct{})
	for _, v := range []*Vault{a, b} {
		wg.Add(1)
		go func(v *Vault) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := v.Store(StoreRequest{Text: fmt.Sprintf("%s fact number %d", v.Caller(), i), Source: "test"}); err != nil {
					t.Error(err)
					return
				}
			}
		}(v)
	}
	var readers sync.WaitGroup
	for _, v := range []*Vault{a, b} {
		readers.Add(1)
		go func(v *Vault) {
			defer readers.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := v.AuditLog("", 5); err != nil {
					t.Error(err)
					return
				}
				if _, err := v.Status(); err != nil {
					t.Error(err)
					return
				}
				if rep, err := v.AuditVerify(); err != nil || !rep.OK {
					t.Errorf("verify while writing: %+v %v", rep, err)
					return
				}
			}
		}(v)
	}
	wg.Wait()
	close(done)
	readers.Wait()
	fresh := h.open("user")
	want, err := fresh.AuditLog("", 0)
	if err != nil || len(want) != 2*each {
		t.Fatalf("fresh open: %d entries, %v", len(want), err)
	}
	for _, v := range []*Vault{a, b} {
		got, err := v.AuditLog("", 0)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s holds another chain (%v): %d entries, want %d", v.Caller(), err, len(got), len(want))
		}
		st, err := v.Status()
		if err != nil || st.AuditEntries != 2*each || st.AuditHead != fmt.Sprintf("%x", want[0].Hash[:8]) {
			t.Fatalf("%s status: %d entries head %s, want head %x (%v)", v.Caller(), st.AuditEntries, st.AuditHead, want[0].Hash[:8], err)
		}
	}
}

// FuzzAuditChainAdd: any body is either refused or kept so that reading
// it back gives what decoding it directly gives.
func FuzzAuditChainAdd(f *testing.F) {
	var c auditChain
	e := c.next(time.UnixMilli(1_700_000_000_000).UTC(), "user", "store", "0123456789abcdef0123456789abcdef")
	f.Add(encodeAudit(e), uint64(1))
	e.Acknowledged = []uint64{3, 4}
	f.Add(encodeAudit(e), uint64(7))
	f.Add([]byte{bodyVersion, audHash, 1, 0}, uint64(2))
	f.Fuzz(func(t *testing.T, body []byte, pos uint64) {
		var c auditChain
		err := c.add(auditID(pos), body)
		want, werr := decodeAudit(body)
		if (err == nil) != (werr == nil) {
			t.Fatalf("add: %v, decode: %v", err, werr)
		}
		if err != nil {
			return
		}
		got, ok := c.get(pos)
		if !ok || !reflect.DeepEqual(got, want) || c.head != pos || !c.headOK || c.headHash != want.Hash {
			t.Fatalf("kept %+v (%v), want %+v", got, ok, want)
		}
	})
}

// TestAuditChainRowsRebuildBodies: a chain written as the vault writes it
// (each entry linked to the one before) is held as rows with no body
// kept, and the bodies rebuilt from them are the stored bytes; entries
// replaced, removed and put out of order in the middle of it then make
// only the rows around them keep bodies, and every entry and body still
// reads back as stored.
func TestAuditChainRowsRebuildBodies(t *testing.T) {
	var c auditChain
	want := map[uint64]*AuditEntry{}
	bodies := map[uint64][]byte{}
	now := time.UnixMilli(1_700_000_000_000).UTC()
	targets := []string{"", idString(auditID(7)), "packs/ref 1.0 abcd key=00", "0123456789ABCDEF0123456789abcdef"}
	add := func(e *AuditEntry) {
		t.Helper()
		b := encodeAudit(e)
		if err := c.add(auditID(e.Seq), b); err != nil {
			t.Fatal(err)
		}
		want[e.Seq], bodies[e.Seq] = e, b
	}
	for i := 0; i < 3000; i++ {
		tm := now.Add(time.Duration(i) * time.Second)
		if i%50 == 0 {
			tm = time.Time{}
		}
		e := c.next(tm, []string{"", "agent", "other"}[i%3], []string{"store", "forget", ""}[i%3], targets[i%len(targets)])
		if i%97 == 0 {
			e.Acknowledged = []uint64{1}
			e.Hash = e.computeHash()
		}
		add(e)
	}
	// Only the entries with acknowledged breaks keep their body.
	if len(c.raw) != (3000+96)/97 {
		t.Fatalf("%d of %d rows keep their body", len(c.raw), c.len())
	}
	check := func() {
		t.Helper()
		if c.len() != len(want) {
			t.Fatalf("holds %d, want %d", c.len(), len(want))
		}
		c.eachBody(func(pos uint64, body []byte) {
			if !bytes.Equal(body, bodies[pos]) {
				t.Fatalf("body %d: %x, want %x", pos, body, bodies[pos])
			}
			if e, ok := c.get(pos); !ok || !reflect.DeepEqual(e, want[pos]) {
				t.Fatalf("entry %d: %+v, want %+v", pos, e, want[pos])
			}
		})
	}
	check()
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 600; i++ {
		pos := uint64(r.IntN(3200)) + 1
		switch r.IntN(3) {
		case 0:
			c.remove(pos)
			delete(want, pos)
			delete(bodies, pos)
		default:
			e := &AuditEntry{Seq: pos, Time: now, Caller: "x", Op: "store", Target: targets[1]}
			if p, ok := want[pos-1]; ok && r.IntN(2) == 0 {
				e.Prev = p.Hash
			}
			if r.IntN(10) == 0 {
				e.Acknowledged = []uint64{pos}
			}
			e.Hash = e.computeHash()
			add(e)
		}
		if i%100 == 0 {
			check()
		}
	}
	check()
	if rep := c.verify(); rep.Entries != len(want) {
		t.Fatalf("verify counted %d", rep.Entries)
	}
}

// TestDecodeHexID: an audit target is an id exactly when it is 32
// lower-case hex digits, as idString writes it, and then decodes to that
// id; any other byte anywhere, an upper-case digit among them, or another
// length is not one.
func TestDecodeHexID(t *testing.T) {
	want := [16]byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10}
	text := []byte(idString(want))
	var got [16]byte
	if !decodeHexID(&got, text) || got != want {
		t.Fatalf("decodeHexID(%s) = %x", text, got)
	}
	for i := range text {
		for b := 0; b < 256; b++ {
			v := bytes.Clone(text)
			v[i] = byte(b)
			isDigit := b >= '0' && b <= '9' || b >= 'a' && b <= 'f'
			var id [16]byte
			ok := decodeHexID(&id, v)
			if ok != isDigit {
				t.Fatalf("byte %#x at %d: id %v, want %v", b, i, ok, isDigit)
			}
			if ok && idString(id) != string(v) {
				t.Fatalf("byte %#x at %d: decoded to %x", b, i, id)
			}
		}
	}
	for _, v := range []string{"", string(text[:31]), string(text) + "0", "0123456789ABCDEFfedcba9876543210"} {
		if decodeHexID(&got, []byte(v)) || isHexID([]byte(v)) {
			t.Errorf("%q taken for an id", v)
		}
	}
}
