// Package bench owns the benchmark harnesses: the latency table, the vector
// index benchmarks and the LongMemEval retrieval run. Each harness drives the
// same packages the vault uses, so its numbers measure the product.
package bench
