package embed

import "runtime/debug"

// trimResident gives back memory the daemon holds but does not need: the
// Go heap's garbage and the C heap's free pages (buffers of the last big
// batch). With pageOutCode it also drops the read-only pages of code and
// constants that start-up touched once: ONNX Runtime registers every
// kernel it has while creating a session, which faults in most of its
// 33 MB of code, while inference runs a small part of it. Dropped file
// pages stay in the page cache and come back on the next touch, so this
// costs page faults on the next request and nothing else; it is done once,
// after loading, not after every quiet spell.
func trimResident(pageOutCode bool) {
	debug.FreeOSMemory()
	trimCHeap()
	if pageOutCode {
		pageOutReadOnly()
	}
}
