package vaultfmt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// loc is where the live version of an item is stored: which frame, which
// entry in it. Compaction keeps an entry only if it is the live one.
type loc struct {
	off  int64 // file offset of the frame
	idx  uint32
	kind Kind
}

// frameFn receives the entries of one opened item frame, in file order.
// off is the frame's file offset and end the offset just past it.
type frameFn func(off, end int64, entries []entry) error

// endMarkerSize is the plaintext of the payload end marker: item count u64,
// frame count u64. Part of the format: do not change.
const endMarkerSize = 16

// walkPayload checks the payload region of a whole file image and, when k
// is non-nil, opens every frame and passes its entries to fn. It returns
// the number of frames (end marker included) and of items. Without k it
// checks structure only: lengths, checksums, bounds.
func walkPayload(file []byte, h *header, k *keys, fn frameFn) (frames, items int, err error) {
	return walkPayloadWith(file, h, k, fn, false)
}

// walkPayloadWith is walkPayload; with openBodies it also opens every
// item's key and body (entry.plain), several frames at a time on the
// machine's cores, ahead of fn, which still sees the frames in file order.
func walkPayloadWith(file []byte, h *header, k *keys, fn frameFn, openBodies bool) (frames, items int, err error) {
	return walkPayloadSkipping(file, h, k, fn, openBodies, nil, nil)
}

// walkPayloadSkipping is walkPayloadWith asking skipper, once the leading
// frames of derived items (2.11) have gone to fn, which later items not
// to open (a [Skipper]); those reach fn with entry.skip set. A payload
// whose derived items share a frame with other items skips nothing.
//
// With expect, the end marker is read ahead and expect told how many items
// are coming, so the caller sizes what it fills once instead of growing it
// a hundred thousand times; the marker is checked at the end all the same.
func walkPayloadSkipping(file []byte, h *header, k *keys, fn frameFn, openBodies bool, skipper func() func() func(ID, Kind, Seal) (uint32, bool), expect func(items int)) (frames, items int, err error) {
	start := int64(h.length)
	end := start + int64(h.payloadLen)
	if h.payloadLen > uint64(len(file)) || end > int64(len(file)) {
		return 0, 0, corruptf("payload", int64(len(file)), -1, "file ends inside the payload (%d of %d bytes)", int64(len(file))-start, h.payloadLen)
	}
	raw, torn, err := scanFrames(file[start:end], start, "payload", 0, false)
	if err != nil {
		return 0, 0, err
	}
	if torn >= 0 {
		return 0, 0, corruptf("payload", torn, len(raw), "payload length does not end on a frame boundary")
	}
	if len(raw) == 0 {
		return 0, 0, corruptf("payload", start, -1, "payload has no end marker")
	}
	if k == nil {
		return len(raw), 0, nil
	}
	last := len(raw) - 1
	if expect != nil {
		if n, ok := endMarkerItems(k, h, raw[last], last); ok {
			// No more than the payload's bytes can hold, whatever it says.
			expect(int(min(n, h.payloadLen/entryHeadSize)))
		}
	}
	// newSkip makes each frame's skip predicate (a [Skipper]'s).
	var newSkip func() func(ID, Kind, Seal) (uint32, bool)
	// openEntries checks and opens the entries of payload frame i, whose
	// frame layer is already open.
	openEntries := func(i int, es []entry, mark batchMark, inPlace bool) ([]entry, error) {
		f := raw[i]
		var err error
		if mark.op != 0 {
			return nil, corruptf("payload", f.off, i, "a batch marker belongs in the journal only")
		}
		var skip func(ID, Kind, Seal) (uint32, bool)
		if newSkip != nil && openBodies {
			skip = newSkip()
		}
		for j := range es {
			if es[j].op != OpPut {
				return nil, corruptf("payload", f.off, i, "entry %d is a tombstone; a payload holds live items only", j)
			}
			if !openBodies {
				continue
			}
			if es[j].stored {
				// A derived item, sealed by its frame only. A frame of a
				// derived item holds nothing else when written (2.11);
				// should one not, the body leaves the recycled plaintext.
				if !inPlace {
					es[j].plain = bytes.Clone(es[j].plain)
				}
				continue
			}
			if skip != nil {
				if es[j].cover, es[j].skip = skip(es[j].id, es[j].kind, sealOf(&es[j])); es[j].skip {
					continue
				}
			}
			open := openItem
			if inPlace {
				open = openItemInPlace
			}
			if es[j].plain, err = open(k, h.vaultID, &es[j]); err != nil {
				return nil, corruptf("item", f.off, -1, "entry %d (id %x): %v", j, es[j].id, err)
			}
		}
		return es, nil
	}
	// With openBodies, what fn is given holds nothing of the frame's
	// plaintext (the bodies are opened into their own buffers), so the
	// plaintext and the entries are recycled once fn has returned: a
	// 100,000-memory payload is ~50 MB of record frames, which were
	// otherwise each allocated, cleared and collected.
	openFrame := func(i int) (openedFrame, error) {
		var sc *frameScratch
		if openBodies {
			sc = frameScratchPool.Get().(*frameScratch)
		}
		es, mark, err := openItemFrameTo(k, h, rolePayload, "payload", i, raw[i], sc)
		if err != nil {
			return openedFrame{}, err
		}
		es, err = openEntries(i, es, mark, false)
		return openedFrame{es, sc}, err
	}
	apply := func(i int, es []entry) error {
		items += len(es)
		return fn(raw[i].off, raw[i].off+raw[i].size(), es)
	}
	first := 0
	if openBodies && skipper != nil && h.derived != 0 {
		// The derived items go to fn first, in order, so the handler
		// holds them when it is asked what to skip.
		var mixed bool
		openLayer := func(i int) ([]entry, batchMark, error) {
			return openItemFrame(k, h, rolePayload, "payload", i, raw[i])
		}
		if first, mixed, err = walkDerived(last, h, openLayer, openEntries, apply); err != nil {
			return 0, 0, err
		}
		if !mixed {
			newSkip = skipper()
		}
	}
	applyFrame := func(i int, f openedFrame) error {
		if err := apply(first+i, f.es); err != nil {
			return err
		}
		f.sc.recycle(f.es)
		return nil
	}
	if err := inOrder(last-first, inOrderAhead, func(i int) (openedFrame, error) { return openFrame(first + i) }, applyFrame); err != nil {
		return 0, 0, err
	}
	if err := checkEndMarker(k, h, raw[last], last, items); err != nil {
		return 0, 0, err
	}
	return len(raw), items, nil
}

// openedFrame is a payload frame's entries, and the scratch they live in
// when it is to be recycled.
type openedFrame struct {
	es []entry
	sc *frameScratch
}

// frameScratch is the memory an item frame is opened into: its plaintext
// and its entries.
type frameScratch struct {
	pt []byte
	es []entry
}

var frameScratchPool = sync.Pool{New: func() any { return new(frameScratch) }}

// recycle hands sc back to the pool, es (in its memory) done with. A nil
// sc is none to hand back.
func (sc *frameScratch) recycle(es []entry) {
	if sc == nil {
		return
	}
	clear(es) // nothing the pool keeps holds an opened body
	sc.es = es[:0]
	frameScratchPool.Put(sc)
}

// derivedFrame is a leading payload frame as [walkDerived] opened it:
// its entries with their bodies open when every one is a derived item;
// otherwise how many of them are.
type derivedFrame struct {
	es      []entry
	all     bool
	derived int
}

// errDerivedEnd stops [walkDerived] at the first frame that holds more
// than derived items.
var errDerivedEnd = errors.New("vaultfmt: end of the derived frames")

// walkDerived opens the leading frames of payload frames 0 … n−1 that hold
// only derived items (2.11), frame layer and bodies, and applies them in
// order, up to the first frame holding anything else. It returns that
// frame's index, and whether it mixed derived items with others. The
// frames are opened on all cores, a few ahead: the derived items are most
// of a large payload's bytes, in a few frames of 16 MiB, and opened one
// after the other they were the open's longest serial step. The frame
// layer of a frame past the first mixed one may be opened for nothing
// (at most derivedAhead of them); the walk opens it again in order.
func walkDerived(n int, h *header, openFrame func(int) ([]entry, batchMark, error), openEntries func(int, []entry, batchMark, bool) ([]entry, error), apply func(int, []entry) error) (first int, mixed bool, err error) {
	open := func(i int) (derivedFrame, error) {
		pt, mark, err := openFrame(i)
		if err != nil {
			return derivedFrame{}, err
		}
		d := 0
		for j := range pt {
			if pt[j].kind == h.derived {
				d++
			}
		}
		if d < len(pt) {
			return derivedFrame{derived: d}, nil
		}
		// The frame layer is open already: decrypting it again cost
		// an open of a 100,000-memory vault a fifth of its AEAD work.
		// The bodies are opened over their sealed bytes in the frame's
		// plaintext, a buffer of this walk's own: a segment part is then
		// held once (16 MiB), not in the frame and again in a copy.
		es, err := openEntries(i, pt, mark, true)
		for j := range es {
			es[j].wrappedKey, es[j].sealedBody = nil, nil // spent
		}
		return derivedFrame{es: es, all: true, derived: d}, err
	}
	first = n
	err = inOrder(n, derivedAhead, open, func(i int, f derivedFrame) error {
		if !f.all {
			first, mixed = i, f.derived > 0
			return errDerivedEnd
		}
		return apply(i, f.es)
	})
	if errors.Is(err, errDerivedEnd) {
		err = nil
	}
	return first, mixed, err
}

// derivedAhead bounds how many opened derived frames wait for apply: each
// may hold 32 MiB (a 16 MiB frame and the body inside it), so no more
// than keeps two cores busy.
const derivedAhead = 2

// endMarkerItems is the item count the payload's end marker holds, if it
// opens.
func endMarkerItems(k *keys, h *header, f rawFrame, seq int) (uint64, bool) {
	pt, err := open(k.frame[:], f.body, aadFrame(rolePayloadEnd, h.vaultID, h.epoch, uint64(seq)))
	if err != nil || len(pt) != endMarkerSize {
		return 0, false
	}
	return binary.LittleEndian.Uint64(pt), true
}

// checkEndMarker opens the payload's end marker and compares its counts
// with what the walk found, so a payload cut at a frame boundary (and its
// header patched) is still damage.
func checkEndMarker(k *keys, h *header, f rawFrame, seq, items int) error {
	pt, err := open(k.frame[:], f.body, aadFrame(rolePayloadEnd, h.vaultID, h.epoch, uint64(seq)))
	if err != nil {
		return corruptf("payload end marker", f.off, seq, "authentication failed")
	}
	if len(pt) != endMarkerSize {
		return corruptf("payload end marker", f.off, seq, "marker is %d bytes, want %d", len(pt), endMarkerSize)
	}
	gotItems, gotFrames := binary.LittleEndian.Uint64(pt), binary.LittleEndian.Uint64(pt[8:])
	if gotItems != uint64(items) || gotFrames != uint64(seq) {
		return corruptf("payload end marker", f.off, seq, "marker says %d items in %d frames, found %d in %d", gotItems, gotFrames, items, seq)
	}
	return nil
}

// walkJournal checks the journal bytes buf (starting at file offset base,
// the first frame having sequence number seq0) and, with k, opens each
// frame and passes its entries to fn. It returns how many frames it passed
// and where a torn tail begins (-1 if none). fn sees every good frame
// before an error in a later one is returned.
//
// The frames of a multi-frame batch reach fn only once its commit frame
// has been read, all together (FORMAT.md §2.6): a batch that the file ends
// inside is torn, and the torn tail begins at its first frame.
func walkJournal(buf []byte, base int64, h *header, k *keys, seq0 uint64, fn frameFn) (frames int, torn int64, err error) {
	raw, torn, err := scanFrames(buf, base, "journal", int(seq0), true)
	if err != nil || k == nil {
		return len(raw), torn, err
	}
	type opened struct {
		f  rawFrame
		es []entry
	}
	var pending []opened
	for i, f := range raw {
		seq := int(seq0) + i
		es, mark, err := openItemFrame(k, h, roleJournal, "journal", seq, f)
		if err != nil {
			return frames, -1, err
		}
		pending = append(pending, opened{f, es})
		switch {
		case mark.op == opBatchMore:
			continue
		case mark.op == opBatchCommit && int(mark.frames) != len(pending):
			return frames, -1, corruptf("journal", f.off, seq, "batch commit names %d frames, the batch has %d", mark.frames, len(pending))
		case mark.op == 0 && len(pending) > 1:
			return frames, -1, corruptf("journal", f.off, seq, "a batch of %d frames is followed by a change before its commit", len(pending)-1)
		}
		for _, p := range pending {
			if err := fn(p.f.off, p.f.off+p.f.size(), p.es); err != nil {
				return frames, -1, err
			}
			frames++
		}
		pending = pending[:0]
	}
	if len(pending) > 0 {
		torn = pending[0].f.off
	}
	return frames, torn, nil
}

// openItemFrame opens one item frame at position seq and decodes its
// entries.
func openItemFrame(k *keys, h *header, r role, region string, seq int, f rawFrame) ([]entry, batchMark, error) {
	return openItemFrameTo(k, h, r, region, seq, f, nil)
}

// openItemFrameTo is openItemFrame into sc's memory (nil: fresh memory),
// which the entries then alias.
func openItemFrameTo(k *keys, h *header, r role, region string, seq int, f rawFrame, sc *frameScratch) ([]entry, batchMark, error) {
	var pt, into []byte
	var esInto []entry
	if sc != nil && len(f.body) >= sealOverhead {
		if need := len(f.body) - sealOverhead; cap(sc.pt) < need {
			sc.pt = make([]byte, 0, need)
		}
		into, esInto = sc.pt[:0], sc.es
	}
	var err error
	if into != nil {
		pt, err = openTo(into, k.frame[:], f.body, aadFrame(r, h.vaultID, h.epoch, uint64(seq)))
	} else {
		pt, err = open(k.frame[:], f.body, aadFrame(r, h.vaultID, h.epoch, uint64(seq)))
	}
	if err != nil {
		return nil, batchMark{}, corruptf(region, f.off, seq, "frame authentication failed (changed, moved, or from another vault or epoch)")
	}
	es, mark, err := parseEntriesTo(esInto, pt)
	if err != nil {
		return nil, mark, corruptf(region, f.off, seq, "%v", err)
	}
	if err := checkStored(es, h, r); err != nil {
		return nil, mark, corruptf(region, f.off, seq, "%v", err)
	}
	return es, mark, nil
}

// checkStored checks how a frame's puts are stored (2.6, 2.11): a plain
// put (op 5) only for a derived item in the payload of a file whose
// header says derived items are stored plain, and there every derived
// item plain.
func checkStored(es []entry, h *header, r role) error {
	plainDerived := r == rolePayload && h.plainDer
	for i := range es {
		e := &es[i]
		if e.op != OpPut {
			continue
		}
		derived := plainDerived && e.kind == h.derived
		if e.stored && !derived {
			return fmt.Errorf("entry %d is a plain put of kind %d; only a derived item is stored plain, in a payload whose header says so", i, e.kind)
		}
		if !e.stored && derived {
			return fmt.Errorf("entry %d is a derived item sealed under an item key; this file stores them plain", i)
		}
	}
	return nil
}

// inOrder runs open(0 … n−1) on up to GOMAXPROCS goroutines (at most
// ahead results ahead of apply) and apply on each result in index
// order, stopping at the first error either returns.
func inOrder[T any](n, ahead int, open func(int) (T, error), apply func(int, T) error) error {
	workers := min(runtime.GOMAXPROCS(0), 4)
	if workers < 2 || n < 2*ahead {
		for i := range n {
			r, err := open(i)
			if err != nil {
				return err
			}
			if err := apply(i, r); err != nil {
				return err
			}
		}
		return nil
	}
	type result struct {
		r    T
		err  error
		done chan struct{}
	}
	results := make([]result, n)
	for i := range results {
		results[i].done = make(chan struct{})
	}
	var next atomic.Int64
	tokens := make(chan struct{}, ahead)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case tokens <- struct{}{}:
				case <-stop:
					return
				}
				select {
				case <-stop:
					return
				default:
				}
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				results[i].r, results[i].err = open(i)
				close(results[i].done)
			}
		}()
	}
	defer wg.Wait()
	defer close(stop)
	for i := range results {
		<-results[i].done
		<-tokens
		if results[i].err != nil {
			return results[i].err
		}
		if err := apply(i, results[i].r); err != nil {
			return err
		}
		var zero T
		results[i].r = zero
	}
	return nil
}

// inOrderAhead bounds how many opened frames wait for apply: memory for a
// few MiB of plaintext, enough to keep every core busy.
const inOrderAhead = 32
