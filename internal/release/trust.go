package release

import (
	"crypto/ed25519"
	_ "embed"
	"strings"
)

// trustedKeysFile lists the project's release public keys, one hex key per
// line ('#' starts a comment). A binary trusts exactly these, plus the key
// its own release was signed with (buildKey). RELEASING.md says how a key
// gets here.
//
//go:embed trusted_keys.txt
var trustedKeysFile string

// buildKey is the public key (hex) of the release this binary belongs to,
// set by `make release` with -ldflags "-X .../internal/release.buildKey=...",
// so that a binary trusts its successors signed by the same key. Empty in
// a plain `make build`.
var buildKey string

// TrustedKeys is the set of release keys this build accepts for `update`:
// the committed list, then the build's own release key. A malformed line
// is skipped (a test keeps the committed file well formed).
func TrustedKeys() []ed25519.PublicKey {
	var keys []ed25519.PublicKey
	for _, line := range append(strings.Split(trustedKeysFile, "\n"), buildKey) {
		line, _, _ = strings.Cut(line, "#")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if k, err := ParseKey(line); err == nil && !trusted(k, keys) {
			keys = append(keys, k)
		}
	}
	return keys
}
