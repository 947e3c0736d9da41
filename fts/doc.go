// Package fts owns the literal index: tokenisation, word and trigram
// postings, document frequencies, the AND-then-OR query and the
// self-information of query terms.
//
// # Terms
//
// Text is NFKC-normalised and cut at Unicode word boundaries (UAX #29:
// uniseg, with an exact ASCII fast path); every word is case-folded and
// indexed whole, and a word with inner structure also as its parts
// (foo_bar → foo, bar; camelCase → camel, case; v1.2.3 → v1; python3 →
// python; parts shorter than two runes are dropped, so a1b2c3d stays
// whole). A white-space-delimited run of several words (a path, an e-mail
// address, a URL, a date like 2023/05/20) is also indexed whole, trimmed of
// the punctuation around it. Queries are cut by the same function.
//
// # Query
//
// Every distinct query term t gets its information over the N live records,
// I(t) = ln(N/(1+max(df(t),1))) (rank.TermInfo). Records holding every term (AND)
// come first; records holding any informative term (df ≤ 10% of N, at
// least 1: measured from the index, not a stop-word list) follow them, and
// are the whole answer when no record holds every term (OR). Every hit,
// however many, gets
// p_lex = Σ I(t) of query terms present / Σ I(t) of all query terms, capped
// at 0.999 (rank.PLex), exactly as DESIGN.md writes it: a record holding
// every word of a query of only common words holds all of its (little)
// information, and matches it. Hits are ordered AND hits first, then by
// BM25 (then p_lex): that order is the channel's rank, which only feeds
// the rank-agreement residue.
//
// # Fragments, misspellings and variants
//
// A trigram index over the vocabulary (each term padded as ^term$) finds
// stand-ins for a query term of four or more runes that no record holds:
// terms containing it (part of a commit SHA or a path) earn the term's
// full information, and terms within one edit (two from eight runes up) of
// it earn 1 − 2·edits/len of it. Other forms of a word of four or more
// runes, told apart by a few English inflectional endings rather than by
// a stemmer (doctor/doctors, attend/attended, shop/shopping, but not
// even/event or week/weekend), stand in for each other at 0.75, as do the
// forms of a listed irregular verb or noun (buy/bought, go/went,
// child/children). Such a term's document frequency, and so its I(t), is
// that of the union of its stand-ins; a record earns weight·I(t), the
// weight of the best stand-in it holds. An informative term in the
// vocabulary keeps its own df and I(t), and its variants earn 0.75 of
// that.
//
// # Bounds
//
// A query reads at most 32 KiB of text and matches its 64 rarest terms
// (all distinct terms still count in Σ I(t)); at most 8 missing terms get
// fuzzy matching, each with at most 256 edit-distance checks and 64
// stand-ins. So a 10,000-character query costs a bounded number of posting
// reads.
//
// # Persistence
//
// The index lives in RAM, rebuilt from the records or restored from a
// snapshot (MarshalBinary, FORMAT.md section 5) that the vault seals. A
// restore decodes only what a query reads (postings into two shared
// arrays, the vocabulary into one string with a pointer-free table), and
// leaves the trigram table to the first query that needs it.
//
// It knows nothing about vectors or cryptography.
package fts
