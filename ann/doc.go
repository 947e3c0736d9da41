// Package ann owns the vector indexes: an exact index over one contiguous
// matrix ([Exact]) and an HNSW graph ([HNSW]), with add, delete, top-k
// search and serialisation to bytes (the caller seals them; the format is
// FORMAT.md section 4). [New] returns an [Auto], which is exact below a
// size threshold and HNSW above it.
//
// Keys are the caller's uint64s; scores are cosines of L2-normalised
// vectors (dequantised for int8 storage). A deleted key is never returned.
//
// Concurrency: every index allows many concurrent Search (and Len, Dim,
// marshalling) calls, or one Add/Delete at a time with nothing else; the
// caller holds a read-write lock.
//
// It knows nothing about text or cryptography.
package ann
