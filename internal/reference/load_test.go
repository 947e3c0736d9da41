package reference

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// Load puts every fact into a real vault as a reference memory tagged
// "reference" and its topic; a second Load changes nothing.
func TestLoadSeedsAVault(t *testing.T) {
	v, err := vault.Create(filepath.Join(t.TempDir(), "v.vault"), vault.Options{
		Unlock: vaultfmt.Unlock{Passphrase: []byte("load-test")},
		KDF:    vaultfmt.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	facts, err := Facts()
	if err != nil {
		t.Fatal(err)
	}
	res, digest, err := Load(v)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := Digest(); digest != want || res.Added != len(facts) {
		t.Fatalf("Load: added %d with digest %s, want %d and %s", res.Added, digest, len(facts), want)
	}
	hits, err := v.Search(vault.SearchRequest{Query: facts[0].Text, TopK: 1, ReferenceOnly: true})
	if err != nil || len(hits) != 1 || !strings.HasPrefix(hits[0].Text, facts[0].Text) {
		t.Fatalf("search for the first fact: %+v, %v", hits, err)
	}
	if !slices.Contains(hits[0].Tags, "reference") || !slices.Contains(hits[0].Tags, facts[0].Topic) {
		t.Errorf("tags %v: want reference and %q", hits[0].Tags, facts[0].Topic)
	}
	again, _, err := Load(v)
	if err != nil || again.Added != 0 || again.Removed != 0 || again.Kept != len(facts) {
		t.Fatalf("second Load: %+v, %v; want every fact kept", again, err)
	}
}
