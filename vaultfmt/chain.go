package vaultfmt

import "crypto/sha256"

// The history chain (FORMAT.md §7.6): a hash over the journal of the
// current epoch, frame by frame, starting from the epoch's header. Two
// copies of a vault that were written to separately differ in it from the
// first frame one of them has and the other does not, whatever their
// lengths, so a rollback check can tell "a longer copy of the same
// history" from "a longer copy of another history".
//
//	c0     = SHA-256(domain || header MAC)
//	c(i+1) = SHA-256(domain || c(i) || tag of journal frame i)
//
// Part of the format: do not change.
const chainDomain = "compartment history v1\x00"

// chainStart is c0 for a header MAC.
func chainStart(mac [macSize]byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(chainDomain))
	h.Write(mac[:])
	var c [32]byte
	h.Sum(c[:0])
	return c
}

// chainStep is c(i+1) from c(i) and frame i's tag.
func chainStep(c [32]byte, tag []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(chainDomain))
	h.Write(c[:])
	h.Write(tag)
	var n [32]byte
	h.Sum(n[:0])
	return n
}

// history returns the chain values of st's epoch so far: element i is the
// value after i committed journal frames.
func (st *fileState) history() [][32]byte {
	if len(st.chain) == 0 {
		st.chain = append(st.chain, chainStart(st.hdr.mac))
	}
	return st.chain
}

// extendChain adds one committed journal frame, whose last tagSize bytes
// (its AEAD tag) are at the end of frame.
func (st *fileState) extendChain(frame []byte) {
	c := st.history()
	var tag [tagSize]byte
	copy(tag[:], frame[len(frame)-tagSize:])
	st.chain = append(c, chainStep(c[len(c)-1], tag[:]))
	st.tags = append(st.tags, tag)
}

// ChainAt returns the history chain value after the first seq committed
// journal frames of epoch, as this handle last read or wrote the file;
// false when the file is at another epoch or has fewer frames.
func (v *Vault) ChainAt(epoch, seq uint64) ([32]byte, bool) {
	st := &v.st
	if st.hdr == nil || st.hdr.epoch != epoch || seq > st.seq {
		return [32]byte{}, false
	}
	return st.history()[seq], true
}
