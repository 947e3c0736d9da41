// Package search is the hybrid recall engine shared by the vault and the
// benchmarks: a literal index (fts), a vector index (ann) over each
// record's embedding windows, and the per-record facts the priors need
// (namespace, write order, importance, opinion affirmation). A query runs
// both channels, fuses them with the formulas in rank, applies the priors
// and the relevance cut, and filters after ranking, widening the candidate
// pools when the filter leaves too few.
//
// It knows nothing about encryption, storage or embedding models: the
// caller hands it text and vectors.
package search
