package dash

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// BenchmarkOverview20k is the server's side of the overview's first paint
// at 20,000 memories: read the vault, count, lay out the chart, render.
func BenchmarkOverview20k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "memory.vault")
	// The bundled model: without one, every store compares its text with
	// every record's, and building the vault would take minutes.
	enc, err := embed.Open(embed.LoadOptions{Name: "static"})
	if err != nil {
		b.Fatal(err)
	}
	defer enc.Close()
	opts := vault.Options{Unlock: vaultfmt.Unlock{Passphrase: testPass}, Encoder: enc, KDF: vaultfmt.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}}
	v, err2 := vault.Create(path, opts)
	err = err2
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	now := time.Now()
	for i := 0; i < 20000; i += 1000 {
		reqs := make([]vault.StoreRequest, 1000)
		for j := range reqs {
			n := i + j
			reqs[j] = vault.StoreRequest{Text: fmt.Sprintf("memory number %d about topic %d", n, n%97), Source: fmt.Sprintf("source %d", n%40),
				Namespace: []string{"main", "work", "home"}[n%3], Tags: []string{fmt.Sprintf("t%d", n%30)}, Raw: true,
				Created: now.Add(-time.Duration(n) * 7 * time.Minute), Supersedes: []string{}}
		}
		if _, err := v.StoreMany(reqs); err != nil {
			b.Fatal(err)
		}
	}
	s, err := New(Options{Open: func() (Reader, error) { return v, nil }})
	if err != nil {
		b.Fatal(err)
	}
	// cold counts everything again (the first load, or after a write);
	// cached is a reload of an unchanged vault.
	for _, mode := range []string{"cold", "cached"} {
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if mode == "cold" {
					s.pages.cached = [2]*cachedOverview{}
				}
				rec := httptest.NewRecorder()
				s.pages.mux.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}
