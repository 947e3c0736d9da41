// Package rank owns every scoring constant and formula: turning a cosine and
// a literal match into probabilities, fusing them as evidence, the priors for
// importance, vault-share age and opinion recency, and the relevance cut.
//
// Everything here is a pure function; the package does no I/O of any kind.
package rank
