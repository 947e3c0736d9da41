// Package rank owns every scoring constant and formula: turning a cosine and
// a literal match into probabilities, fusing them as evidence, the priors for
// importance, vault-share age and opinion recency, and the default answer.
//
// The fused evidence of a record is
//
//	evidence = aged(ρ·−w_vec·ln(1 − p_vec), q) − (1 − w_vec)·ln(1 − p_lex) + residue
//
// where w_vec is the model's semantic weight ([Calibration.Weight]: the
// spec's 0.75 for bge-small; for a static model the weight, fitted on
// mined pairs the model never trained on, at which the fused ranking puts
// a pair's own answer highest, by MRR@10) and ρ = √(1 − best p_lex)·(1 −
// unseen) the semantic channel's reliability for the query: less when
// some record already holds most of the query's information, and less by
// the share of that information in words the model has no vector for
// ([SemanticReliability]).
// See [Evidence].
//
// The default answer (a search without top_k) is at most five records:
// those holding a rare query word, then those with
//
//	unaged ≥ 0.6·best unaged
//
// each with a [Confidence] read from its relevance
// 1 − (1 − p_vec)^ρ·(1 − p_lex) (p_vec from the model's calibration
// [Calibration.PVec], p_lex the share of the query's information a record
// holds [PLex], ρ the semantic channel's reliability for the query
// [SemanticReliability]), its lead over the next candidate and how far it
// stands out of the pool ([Standout]), at least the first result's
// confidence times its share of the first's score when it comes after it
// ([Behind]), and a [Match] label. See [Relevance], [Cut] and [Confidence].
//
// Everything here is a pure function; the package does no I/O of any kind.
package rank
