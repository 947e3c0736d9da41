// Package selftest checks that an install of compartment works end to end
// against an open vault: sealing, the audit chain, the index against the
// records, the offline guard, the model pin, recall of the vault's own
// memories and twenty fixed questions over the reference facts, each with
// its latency. `compartment selftest` and the memory_selftest tool both run
// it. It only reads the vault.
package selftest

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/compartment/compartment/internal/offline"
	"github.com/compartment/compartment/internal/reference"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// ownSamples is how many of the vault's own memories are searched for by
// their text.
const ownSamples = 5

// nonsenseQuery should match nothing in any real vault; how many results it
// gets is reported (not judged): a relevance cut returns none.
const nonsenseQuery = "zqxjv kwyjibo vlorpt 7f3a9c2e"

// Options says what the caller measured or can provide.
type Options struct {
	// OpenMS is how long opening the vault took, when the caller timed it
	// (the CLI does; a server opened it long ago).
	OpenMS float64
	// Executable is the compartment binary, run as a child to probe the
	// offline guard; "" skips that check.
	Executable string
}

// Check is one step.
type Check struct {
	Name   string  `json:"name"`
	OK     bool    `json:"ok"`
	Detail string  `json:"detail"`
	MS     float64 `json:"ms"`
}

// Answer is one reference question and how the search did on it.
type Answer struct {
	Ask  string  `json:"ask"`
	Want string  `json:"want"`
	Rank int     `json:"rank"` // 1-based rank of the fact in the top 3; 0 = not there
	Got  string  `json:"got"`  // the first result, for a miss
	MS   float64 `json:"ms"`
}

// Report is the whole self-test.
type Report struct {
	OK              bool     `json:"ok"`
	Checks          []Check  `json:"checks"`
	Questions       []Answer `json:"questions"`
	Hits            int      `json:"hits"`     // questions whose fact is in the top 3
	HitAt3          float64  `json:"hit_at_3"` // hits / questions asked
	SearchP50MS     float64  `json:"search_p50_ms"`
	SearchMaxMS     float64  `json:"search_max_ms"`
	NonsenseResults int      `json:"nonsense_results"`
}

// Run runs every check against v.
func Run(v *vault.Vault, opts Options) (Report, error) {
	var r Report
	add := func(c Check) { r.Checks = append(r.Checks, c) }

	start := time.Now()
	st, err := v.Status()
	if err != nil {
		return r, err
	}
	open := Check{Name: "open", OK: true, MS: opts.OpenMS,
		Detail: fmt.Sprintf("%d live memories: %d yours, %d reference, %d in packs; %d relations",
			st.Live, st.OrganicRecords, st.ReferenceRecords, st.PackRecords, st.Relations)}
	if opts.OpenMS == 0 {
		open.MS = msSince(start)
	} else {
		open.Detail += " (the time includes unlocking: Argon2id unless a `compartment unlock` session is open)"
	}
	add(open)

	start = time.Now()
	seal := Check{Name: "seal round-trip", OK: true, Detail: "XChaCha20-Poly1305 opens what it sealed and refuses a changed byte, AAD or key"}
	if err := vaultfmt.SealSelfTest(); err != nil {
		seal.OK, seal.Detail = false, err.Error()
	}
	seal.MS = msSince(start)
	add(seal)

	start = time.Now()
	audit, err := v.AuditVerify()
	if err != nil {
		return r, err
	}
	c := Check{Name: "audit chain", OK: audit.OK, MS: msSince(start), Detail: fmt.Sprintf("%d entries intact", audit.Entries)}
	if !audit.OK {
		c.Detail = fmt.Sprintf("%d breaks: run `compartment audit verify`", len(audit.Breaks))
	}
	add(c)

	start = time.Now()
	ix, err := v.CheckIndex()
	if err != nil {
		return r, err
	}
	add(Check{Name: "index", OK: ix.OK, MS: msSince(start), Detail: ix.String()})

	add(offlineCheck(opts.Executable))
	add(ModelCheck(st.Model))

	lat, err := recallCheck(v, add)
	if err != nil {
		return r, err
	}
	qlat, err := questionsCheck(v, &r, add)
	if err != nil {
		return r, err
	}
	lat = append(lat, qlat...)

	start = time.Now()
	hits, err := v.Search(vault.SearchRequest{Query: nonsenseQuery})
	if err != nil {
		return r, err
	}
	lat = append(lat, msSince(start))
	r.NonsenseResults = len(hits)
	slices.Sort(lat)
	r.SearchP50MS, r.SearchMaxMS = lat[len(lat)/2], lat[len(lat)-1]
	r.OK = true
	for _, c := range r.Checks {
		r.OK = r.OK && c.OK
	}
	return r, nil
}

func offlineCheck(exe string) Check {
	c := Check{Name: "offline guard", OK: true}
	if exe == "" {
		c.Detail = "not checked here"
		return c
	}
	start := time.Now()
	if layers, err := offline.Probe(exe); err != nil {
		c.OK, c.Detail = false, err.Error()
	} else {
		c.Detail = "a guarded child process cannot open TCP or UDP sockets (IPv4 and IPv6); Unix sockets still work"
		if layers != "" {
			c.Detail += "; " + layers
		}
	}
	c.MS = msSince(start)
	return c
}

// ModelCheck reports the model pin against the loaded model.
func ModelCheck(m vault.ModelStatus) Check {
	c := Check{Name: "embedding model", OK: true}
	switch {
	case m.Pinned == "" && m.Loaded == "":
		c.Detail = "none: literal search only"
	case m.Loaded == "":
		c.OK, c.Detail = false, fmt.Sprintf("vault is pinned to %s but no model is loaded: semantic recall is off", m.Pinned)
	case m.Pinned != "" && m.Pinned != m.Loaded:
		c.OK, c.Detail = false, fmt.Sprintf("vault is pinned to %s but %s is loaded", m.Pinned, m.Loaded)
	case m.Unembedded > 0:
		c.OK, c.Detail = false, fmt.Sprintf("%s loaded; %d memories have no vectors yet: run `compartment reindex`", m.Loaded, m.Unembedded)
	default:
		c.Detail = m.Loaded + " loaded, matches the vault's pin, every memory embedded"
	}
	return c
}

// recallCheck searches for a few of the user's own memories, spread over
// the vault, by their own text and checks each comes back in its top 10.
func recallCheck(v *vault.Vault, add func(Check)) ([]float64, error) {
	all, err := v.Recent(vault.RecentRequest{Limit: math.MaxInt32})
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		add(Check{Name: "recall", OK: true, Detail: "no memories of yours yet: nothing to recall"})
		return nil, nil
	}
	n := min(ownSamples, len(all))
	var lat []float64
	found := 0
	for i := range n {
		rec := all[i*len(all)/n]
		start := time.Now()
		hits, err := v.Search(vault.SearchRequest{Query: rec.Text, TopK: 10, Namespace: rec.Namespace})
		if err != nil {
			return nil, err
		}
		lat = append(lat, msSince(start))
		for _, h := range hits {
			if h.ID == rec.ID {
				found++
				break
			}
		}
	}
	add(Check{Name: "recall", OK: found == n, MS: sum(lat),
		Detail: fmt.Sprintf("%d of %d of your memories found by their own text in the top 10", found, n)})
	return lat, nil
}

// questionsCheck asks the fixed reference questions through the ordinary
// search (reference facts switched on for it) and records hit@3.
func questionsCheck(v *vault.Vault, r *Report, add func(Check)) ([]float64, error) {
	st, err := v.Status()
	if err != nil {
		return nil, err
	}
	if st.ReferenceRecords == 0 {
		add(Check{Name: "reference questions", OK: true, Detail: "this vault has no reference facts (`compartment reference update` loads them)"})
		return nil, nil
	}
	on := true
	var lat []float64
	for _, q := range reference.Questions {
		start := time.Now()
		hits, err := v.Search(vault.SearchRequest{Query: q.Ask, TopK: 3, IncludeReference: &on})
		if err != nil {
			return nil, err
		}
		a := Answer{Ask: q.Ask, Want: q.Fact, MS: msSince(start)}
		lat = append(lat, a.MS)
		for i, h := range hits {
			if strings.HasPrefix(h.Text, q.Fact+" [") {
				a.Rank = i + 1
				break
			}
		}
		if a.Rank == 0 && len(hits) > 0 {
			a.Got = hits[0].Text
		}
		if a.Rank > 0 {
			r.Hits++
		}
		r.Questions = append(r.Questions, a)
	}
	r.HitAt3 = float64(r.Hits) / float64(len(reference.Questions))
	add(Check{Name: "reference questions", OK: r.Hits == len(reference.Questions), MS: sum(lat),
		Detail: fmt.Sprintf("%d of %d questions found their fact in the top 3 (hit@3 %.2f)", r.Hits, len(reference.Questions), r.HitAt3)})
	return lat, nil
}

func msSince(t time.Time) float64 {
	return math.Round(float64(time.Since(t).Microseconds())) / 1000
}

func sum(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t
}
