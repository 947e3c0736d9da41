package vault

import (
	"fmt"

	"github.com/compartment/compartment/internal/reference"
)

// ReferenceNamespace is where the reference facts live: the one pack kept
// in main as ordinary (reference-flagged) memories.
const ReferenceNamespace = "main"

// LoadReference makes the vault's reference facts exactly facts: facts
// already there are kept as they are, new ones are added, ones the pack no
// longer has are removed. The user's own memories, packs and relations are
// not touched. version (the pack's digest) goes into the audit entry.
func (v *Vault) LoadReference(facts []BulkFact, version string) (BulkResult, error) {
	if len(version) > 12 {
		version = version[:12]
	}
	return v.bulkReplace(bulkScope{namespace: ReferenceNamespace, reference: true}, facts, "reference", "reference pack "+version)
}

// LoadBundledReference makes the vault's reference facts the ones this
// binary ships (package reference), each tagged "reference" and its topic,
// as `init` and `reference update` do; it returns what changed and the
// pack's digest.
func (v *Vault) LoadBundledReference() (BulkResult, string, error) {
	facts, err := reference.Facts()
	if err != nil {
		return BulkResult{}, "", err
	}
	digest, _ := reference.Digest()
	bulk := make([]BulkFact, len(facts))
	for i, f := range facts {
		bulk[i] = BulkFact{Text: f.Text, Source: f.Source, Tags: []string{"reference", f.Topic}}
	}
	res, err := v.LoadReference(bulk, digest)
	if err != nil {
		return res, digest, fmt.Errorf("load the reference facts: %w", err)
	}
	return res, digest, nil
}
