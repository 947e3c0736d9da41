// Package reference owns the reference facts a new vault starts with: about
// 7,200 one-claim facts (ports, MIME types, ISO codes, time zones,
// hardware vendor ids, errno and signal numbers, system calls, Unicode
// blocks, what shell commands do), each citing the pinned Debian package
// file it was read from.
//
// The facts are built by the generator in gen/ (`make facts`) from the
// packages pinned in gen/packages.lock and embedded in the binary as
// facts.jsonl.gz. This package only reads them; it knows nothing about
// vaults or search.
package reference
