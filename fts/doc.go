// Package fts owns the literal index: tokenisation, word and trigram
// postings, document frequencies, the AND-then-OR query and the
// self-information of query terms.
//
// It knows nothing about vectors or cryptography.
package fts
