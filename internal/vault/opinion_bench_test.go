package vault

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// BenchmarkStoreOpinion1k stores opinions into a vault of 1,000 facts:
// the opinion check (cosine candidates, the literal channel's, the rules
// with the lexicon) on every store.
func BenchmarkStoreOpinion1k(b *testing.B) {
	dir := b.TempDir()
	v, err := Create(filepath.Join(dir, "op.vault"), Options{Unlock: vaultfmt.Unlock{Passphrase: testPass}, Encoder: staticEncoder(b), KDF: testKDF})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 1000; i++ {
		if _, err := v.Store(StoreRequest{Text: benchClaim(r, i), Source: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
	holders := []string{"Ines", "Tomas", "Kofi", "Nadia", "Oona", "Hana"}
	things := []string{"rye bread", "window seats", "paper notebooks", "jazz records", "board games", "payments by card",
		"workouts before breakfast", "film nights", "backups before trips", "the couch for reading"}
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		text := fmt.Sprintf("%s prefers %s on day %d.", holders[i%len(holders)], things[(i/len(holders))%len(things)], i)
		start := time.Now()
		if _, err := v.Store(StoreRequest{Text: text, Source: "bench", Kind: KindOpinion, Namespace: fmt.Sprintf("n%d", i%7)}); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(start))
	}
	reportPercentiles(b, samples)
}

// BenchmarkDecideOpinion is the rules alone on the held-out pairs, the
// cost every opinion candidate of a store pays.
func BenchmarkDecideOpinion(b *testing.B) {
	cal := calibrations(b)["static"]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := heldOutPairs[i%len(heldOutPairs)]
		DecideOpinion(p.first, p.second, 0.5, cal)
	}
}
