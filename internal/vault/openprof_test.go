//go:build unix

package vault

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// TestOpenProfile opens the vault VAULT_OPEN_PROFILE_VAULT (passphrase
// VAULT_OPEN_PROFILE_PASS; the bench's kept vaults use "bench passphrase,
// not a secret") three times with the bundled static model and logs the
// open time and the heap after open; with VAULT_OPEN_PROFILE_OUT=PREFIX
// it writes PREFIX.cpu and PREFIX.heap. A measuring tool (#29), skipped
// unless the variable is set (TestMain clears COMPARTMENT_*). With
// VAULT_OPEN_PROFILE_COMPACT=1 it first compacts the vault (so a vault
// written by an older build gets this build's segment and record table).
func TestOpenProfile(t *testing.T) {
	path := os.Getenv("VAULT_OPEN_PROFILE_VAULT")
	if path == "" {
		t.Skip("VAULT_OPEN_PROFILE_VAULT not set")
	}
	enc := staticEncoder(t)
	if os.Getenv("VAULT_OPEN_PROFILE_COMPACT") == "1" {
		v, err := Open(path, Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(os.Getenv("VAULT_OPEN_PROFILE_PASS"))}, Encoder: enc})
		if err != nil {
			t.Fatal(err)
		}
		if err := v.File().Compact(); err != nil {
			t.Fatal(err)
		}
		v.Close()
	}
	v, err := Open(path, Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(os.Getenv("VAULT_OPEN_PROFILE_PASS"))}, Encoder: enc, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	key := v.File().MasterKey()
	t.Logf("segment used %v early %v err %v; record table used %v (%d records, %d audit entries) err %v retry %v", v.st.segUsed, v.st.segEarly, v.st.segErr, v.st.tableUsed, v.st.tableRecords, v.st.tableAudits, v.st.tableErr, v.st.tableRetry)
	v.Close()
	out := os.Getenv("VAULT_OPEN_PROFILE_OUT")
	if out != "" {
		defer cpuProfile(t, out+".cpu")()
	}
	for i := 0; i < 3; i++ {
		runtime.GC()
		cpu0 := cpuTime()
		t0 := time.Now()
		v, err := Open(path, Options{Unlock: vaultfmt.Unlock{MasterKey: key}, Encoder: enc, ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		d, cpu := time.Since(t0), cpuTime()-cpu0
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		t.Logf("open %v (cpu %v) heap %.1f MB (records %d, audit %d)", d, cpu, float64(ms.HeapAlloc)/1e6, v.st.records.len(), v.st.audit.len())
		if out != "" && i == 2 {
			heapProfile(t, out+".heap")
		}
		v.Close()
	}
}

// TestServeProfile opens VAULT_OPEN_PROFILE_VAULT for writing, as the MCP
// server does, runs VAULT_OPEN_PROFILE_SEARCHES searches (default 100)
// and logs the heap after the open and after the searches; with
// VAULT_OPEN_PROFILE_OUT=PREFIX it writes PREFIX.open.heap and
// PREFIX.serve.heap; VAULT_OPEN_PROFILE_STORES=N first stores N memories
// (into the vault: give it a copy). A measuring tool (#29), skipped unless the vault
// variable is set.
func TestServeProfile(t *testing.T) {
	path := os.Getenv("VAULT_OPEN_PROFILE_VAULT")
	if path == "" {
		t.Skip("VAULT_OPEN_PROFILE_VAULT not set")
	}
	n, err := strconv.Atoi(os.Getenv("VAULT_OPEN_PROFILE_SEARCHES"))
	if err != nil {
		n = 100
	}
	out := os.Getenv("VAULT_OPEN_PROFILE_OUT")
	opts := Options{Unlock: vaultfmt.Unlock{Passphrase: []byte(os.Getenv("VAULT_OPEN_PROFILE_PASS"))}, Encoder: staticEncoder(t)}
	if stores, _ := strconv.Atoi(os.Getenv("VAULT_OPEN_PROFILE_STORES")); stores > 0 {
		// A journal after the compaction, as the bench's stores leave one
		// before it starts the server (this writes to the vault: use a copy).
		w, err := Open(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < stores; i++ {
			if _, err := w.Store(StoreRequest{Text: fmt.Sprintf("The profile store number %d went to the journal", i), Source: "profile"}); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
	}
	v, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	heap := func(what string) {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		t.Logf("%s: heap %.1f MB (records %d)", what, float64(ms.HeapAlloc)/1e6, v.st.records.len())
		if out != "" {
			heapProfile(t, out+"."+what+".heap")
		}
	}
	heap("open")
	words := []string{"dentist", "sister", "language", "cats", "deadline", "restaurant", "passport", "kitchen", "budget", "march"}
	for i := 0; i < n; i++ {
		q := fmt.Sprintf("what did I note about the %s and the %s %d", words[i%len(words)], words[(i/len(words))%len(words)], i)
		if _, err := v.Search(SearchRequest{Query: q}); err != nil {
			t.Fatal(err)
		}
	}
	heap("serve")
}
