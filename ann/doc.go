// Package ann owns the vector indexes: an exact index over one contiguous
// matrix and an HNSW graph, with add, delete, top-k search and
// serialisation to bytes (the caller seals them).
//
// It knows nothing about text or cryptography.
package ann
