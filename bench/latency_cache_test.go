package bench

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// TestClaimStreamIsGenerateClaims: the streamed claims and the questions
// drawn from them are exactly those of the held slice they replace.
func TestClaimStreamIsGenerateClaims(t *testing.T) {
	const n = 5000
	held := GenerateClaims(1, n)
	st := NewClaimStream(1)
	for i := range held {
		if c := st.Next(); c.Text != held[i].Text || c.Query != held[i].Query {
			t.Fatalf("claim %d: streamed %q, held %q", i, c.Text, held[i].Text)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	got := pickQueries(n, 300)
	for k := range got {
		if want := held[r.IntN(n)].Query; got[k] != want {
			t.Fatalf("query %d: %q, want %q", k, got[k], want)
		}
	}
}

// TestLatencyKeepsAndReusesTheVault: with a cache directory the first run
// builds the vault there and the second reuses it (measuring a copy, so
// the kept vault still holds exactly the generated claims).
func TestLatencyKeepsAndReusesTheVault(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a vault twice")
	}
	enc, err := embed.OpenStatic()
	if err != nil {
		t.Skipf("static model: %v", err)
	}
	defer enc.Close()
	cache := t.TempDir()
	opts := LatencyOptions{Records: 700, Searches: 20, Stores: 5, VectorN: 500, Encoder: enc, CacheDir: cache, SourceDir: t.TempDir()}
	first, err := RunLatency(opts)
	if err != nil {
		t.Fatal(err)
	}
	second, err := RunLatency(opts)
	if err != nil {
		t.Fatal(err)
	}
	if first.VaultReused || !second.VaultReused || first.VaultCache != second.VaultCache || second.SearchP50Ms <= 0 {
		t.Fatalf("first run reused %v, second %v (%s, %s)", first.VaultReused, second.VaultReused, first.VaultCache, second.VaultCache)
	}
	if filepath.Dir(first.VaultCache) != cache {
		t.Fatalf("kept vault %s is not in %s", first.VaultCache, cache)
	}
	v, err := vault.Open(first.VaultCache, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(benchPass)}, Encoder: enc})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if f := v.File().JournalFrames(); f != 0 {
		t.Errorf("the kept vault was left with %d journal frames; a build leaves it compacted", f)
	}
	if first.Memories <= 0 || first.Memories > opts.Records || second.Memories != first.Memories {
		t.Errorf("memories %d then %d of %d lines", first.Memories, second.Memories, opts.Records)
	}
	var out bytes.Buffer
	n, err := v.Export(&out)
	if err != nil || n == 0 || n > opts.Records || bytes.Contains(out.Bytes(), []byte("bench store")) {
		t.Fatalf("kept vault: %d lines (%v), stores in it: %v; the runs' stores must go to copies", n, err, bytes.Contains(out.Bytes(), []byte("bench store")))
	}
	if _, err := os.Stat(first.VaultCache + ".done"); err != nil {
		t.Fatal(err)
	}
}
