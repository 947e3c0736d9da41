package ann

// nodeIndex maps a key to its graph slot. The keys a vault gives are its
// doc numbers, dense from 0, so a slice indexed by the key holds them in 4
// bytes each, filled in one pass at restore; a map took ~20 bytes a key and
// a hash insert each, 100 ms of a 766,811-node restore. A key far above
// the others (more than twice the count past the slice's end) goes to a
// map instead, so a few large keys cannot make the slice huge.
type nodeIndex struct {
	dense  []uint32 // dense[k] is key k's slot+1; 0 for none
	sparse map[uint64]uint32
	n      int
}

// denseSlack is how far past twice the count a key may lie and still be
// held in the slice.
const denseSlack = 4096

func (x *nodeIndex) len() int { return x.n }

func (x *nodeIndex) get(k uint64) (uint32, bool) {
	if k < uint64(len(x.dense)) {
		if s := x.dense[k]; s != 0 {
			return s - 1, true
		}
		return 0, false
	}
	s, ok := x.sparse[k]
	return s, ok
}

// set makes id key k's slot, and reports whether k was new.
func (x *nodeIndex) set(k uint64, id uint32) bool {
	if k >= uint64(len(x.dense)) && k < 2*uint64(x.n)+denseSlack {
		x.grow(k + 1)
	}
	if k < uint64(len(x.dense)) {
		added := x.dense[k] == 0
		x.dense[k] = id + 1
		if added {
			x.n++
		}
		return added
	}
	if x.sparse == nil {
		x.sparse = map[uint64]uint32{}
	}
	_, had := x.sparse[k]
	x.sparse[k] = id
	if !had {
		x.n++
	}
	return !had
}

// del removes key k, and reports whether it was there.
func (x *nodeIndex) del(k uint64) bool {
	if k < uint64(len(x.dense)) {
		if x.dense[k] == 0 {
			return false
		}
		x.dense[k] = 0
		x.n--
		return true
	}
	if _, ok := x.sparse[k]; !ok {
		return false
	}
	delete(x.sparse, k)
	x.n--
	return true
}

// grow makes the slice at least n long (doubling, so adding keys in order
// costs amortised constant time), moving into it the keys of the map it
// now covers.
func (x *nodeIndex) grow(n uint64) {
	size := max(n, 2*uint64(len(x.dense)), 64)
	d := make([]uint32, size)
	copy(d, x.dense)
	x.dense = d
	for k, s := range x.sparse {
		if k < size {
			d[k] = s + 1
			delete(x.sparse, k)
		}
	}
}

// indexKeys is the index of slots 0..len(keys)-1 holding keys, and the
// slot of the first key listed twice (-1 for none).
func indexKeys(keys []uint64) (nodeIndex, int) {
	var x nodeIndex
	top := uint64(0)
	for _, k := range keys {
		top = max(top, k)
	}
	if len(keys) > 0 && top < 2*uint64(len(keys))+denseSlack {
		x.dense = make([]uint32, top+1)
	}
	for i, k := range keys {
		if !x.set(k, uint32(i)) {
			return x, i
		}
	}
	return x, -1
}
