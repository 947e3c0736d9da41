// Package embed owns turning text into vectors on this machine: the
// tokenizer, the ONNX runtime backend, the bundled static model, token
// windows, pooling, the model manifest and pin, and the shared embedding
// daemon that lets many processes use one loaded model.
//
// It knows nothing about the vault or the ranking.
package embed
