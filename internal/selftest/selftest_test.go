package selftest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/hermetic"
	"github.com/compartment/compartment/internal/reference"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

var cheapKDF = vaultfmt.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}

var pass = []byte("correct horse battery staple")

func TestMain(m *testing.M) {
	hermetic.Clear()
	os.Setenv("COMPARTMENT_UNLOCK_DELAY_MS", "100")
	os.Exit(m.Run())
}

func staticModel(tb testing.TB) embed.Encoder {
	enc, err := embed.OpenStatic()
	if err != nil {
		tb.Fatalf("the bundled static model: %v", err)
	}
	return enc
}

var (
	refOnce  sync.Once
	refPath  string
	refError error
)

// referenceVault is a vault in a temp dir holding the reference facts,
// made the way init makes it (once per test run).
func referenceVault(tb testing.TB) string {
	refOnce.Do(func() {
		dir, err := os.MkdirTemp("", "compartment-selftest-")
		if err != nil {
			refError = err
			return
		}
		refPath = filepath.Join(dir, "ref.vault")
		v, err := vault.Create(refPath, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: pass}, Encoder: staticModel(tb), KDF: cheapKDF})
		if err != nil {
			refError = err
			return
		}
		defer v.Close()
		_, _, refError = v.LoadBundledReference()
	})
	if refError != nil {
		tb.Fatal(refError)
	}
	return refPath
}

func openRef(tb testing.TB) *vault.Vault {
	v, err := vault.Open(referenceVault(tb), vault.Options{Unlock: vaultfmt.Unlock{Passphrase: pass}, Encoder: staticModel(tb)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { v.Close() })
	return v
}

// TestReferenceQuestionsHitAt3 is the bar: every fixed question
// finds its fact in the top 3 of the product's ordinary search over a
// freshly seeded vault, and with the reference facts switched off the same
// questions return none of them.
func TestReferenceQuestionsHitAt3(t *testing.T) {
	v := openRef(t)
	rep, err := Run(v, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Every question finds its fact, "what port does postgres use" too:
	// its do-support is framing (fts), and the static model's fitted
	// semantic weight keeps capped cosines of facts that share only "port"
	// from outvoting the only fact that holds "postgres".
	for _, q := range rep.Questions {
		if q.Rank == 0 {
			t.Errorf("miss: %q wants %q, got %q", q.Ask, q.Want, q.Got)
		}
	}
	if rep.HitAt3 != 1 {
		t.Errorf("hit@3 %.2f, want 1", rep.HitAt3)
	}
	t.Logf("hit@3 %.2f (%d of %d)", rep.HitAt3, rep.Hits, len(reference.Questions))
	off := false
	for _, q := range reference.Questions {
		hits, err := v.Search(vault.SearchRequest{Query: q.Ask, IncludeReference: &off})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 0 {
			t.Errorf("reference switched off, %q still returns %d results", q.Ask, len(hits))
		}
	}
}

func TestChecksPassOnAHealthyVault(t *testing.T) {
	v := openRef(t)
	rep, err := Run(v, Options{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, c := range rep.Checks {
		names[c.Name] = true
		if !c.OK && c.Name != "reference questions" {
			t.Errorf("check %s failed: %s", c.Name, c.Detail)
		}
	}
	for _, want := range []string{"open", "seal round-trip", "audit chain", "index", "offline guard", "embedding model", "recall", "reference questions"} {
		if !names[want] {
			t.Errorf("no %q check", want)
		}
	}
}

// TestModelCheckRefusesAMissingModel: the self-test can fail.
func TestModelCheckRefusesAMissingModel(t *testing.T) {
	if c := ModelCheck(vault.ModelStatus{Pinned: "compartment-static-v1"}); c.OK {
		t.Errorf("a pinned vault with no model loaded passed: %+v", c)
	}
	if c := ModelCheck(vault.ModelStatus{Pinned: "a", Loaded: "a", Unembedded: 3}); c.OK {
		t.Errorf("unembedded records passed: %+v", c)
	}
}

// BenchmarkOpenWithReference times opening a vault holding the reference
// facts, unlock excluded (the master key is given), model already loaded.
func BenchmarkOpenWithReference(b *testing.B) {
	path := referenceVault(b)
	enc := staticModel(b)
	v, err := vault.Open(path, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: pass}, Encoder: enc})
	if err != nil {
		b.Fatal(err)
	}
	key := v.File().MasterKey()
	v.Close()
	b.ReportAllocs()
	// On a shared machine wall time swings with the load; the process's
	// CPU time per open (user + system, all threads) is reported beside it.
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v, err := vault.Open(path, vault.Options{Unlock: vaultfmt.Unlock{MasterKey: key}, Encoder: enc})
		if err != nil {
			b.Fatal(err)
		}
		v.Close()
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu_ms/op")
}
