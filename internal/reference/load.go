package reference

import (
	"fmt"

	"github.com/compartment/compartment/internal/vault"
)

// Load makes v's reference facts exactly the ones this binary ships, each
// tagged "reference" and its topic, as `init` and `reference update` do;
// it returns what changed and the pack's digest.
func Load(v *vault.Vault) (vault.BulkResult, string, error) {
	facts, err := Facts()
	if err != nil {
		return vault.BulkResult{}, "", err
	}
	digest, _ := Digest()
	bulk := make([]vault.BulkFact, len(facts))
	for i, f := range facts {
		bulk[i] = vault.BulkFact{Text: f.Text, Source: f.Source, Tags: []string{"reference", f.Topic}}
	}
	res, err := v.LoadReference(bulk, digest)
	if err != nil {
		return res, digest, fmt.Errorf("load the reference facts: %w", err)
	}
	return res, digest, nil
}
