package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// selftestSamples is how many of the vault's own memories the self-test
// searches for.
const selftestSamples = 5

// nonsenseQuery should match nothing in any real vault; how many results it
// gets is reported (not judged): a relevance cut returns none.
const nonsenseQuery = "zqxjv kwyjibo vlorpt 7f3a9c2e"

type checkOut struct {
	Name   string  `json:"name"`
	OK     bool    `json:"ok"`
	Detail string  `json:"detail"`
	MS     float64 `json:"ms"`
}

type selftestOut struct {
	OK              bool       `json:"ok"`
	Checks          []checkOut `json:"checks"`
	SearchP50MS     float64    `json:"search_p50_ms"`
	SearchMaxMS     float64    `json:"search_max_ms"`
	NonsenseResults int        `json:"nonsense_results"`
}

func (s *Server) selftestTool() toolDef {
	return toolDef{
		name: "memory_selftest", title: "Memory self-test", description: selftestDesc,
		readOnly: true, idempotent: true, needsRead: true,
		in: inputObject(schema{}),
		out: outputObject(schema{
			"ok": boolean("every check passed"),
			"checks": list("", outputObject(schema{
				"name":   str(""),
				"ok":     boolean(""),
				"detail": str(""),
				"ms":     number("time the check took"),
			}, "name", "ok", "detail", "ms")),
			"search_p50_ms":    number("median latency of the self-test searches"),
			"search_max_ms":    number("slowest self-test search"),
			"nonsense_results": integer("results for a query about nothing in the vault (a relevance cut gives 0)", 0, math.MaxInt32),
		}, "ok", "checks", "search_p50_ms", "search_max_ms", "nonsense_results"),
		run: func(v *vault.Vault, raw json.RawMessage) (any, error) {
			if err := decode(raw, &struct{}{}); err != nil {
				return nil, err
			}
			return selftest(v)
		},
	}
}

// selftest runs read-only checks against the open vault.
func selftest(v *vault.Vault) (selftestOut, error) {
	var out selftestOut
	add := func(c checkOut) { out.Checks = append(out.Checks, c) }

	start := time.Now()
	st, err := v.Status()
	if err != nil {
		return out, err
	}
	add(checkOut{Name: "status", OK: true, MS: msSince(start),
		Detail: fmt.Sprintf("%d live memories (%d the user's own), %d relations", st.Live, st.OrganicRecords, st.Relations)})

	start = time.Now()
	audit, err := v.AuditVerify()
	if err != nil {
		return out, err
	}
	c := checkOut{Name: "audit chain", OK: audit.OK, MS: msSince(start), Detail: fmt.Sprintf("%d entries intact", audit.Entries)}
	if !audit.OK {
		c.Detail = fmt.Sprintf("%d breaks: the user should run `compartment audit verify`", len(audit.Breaks))
	}
	add(c)
	add(modelCheck(st.Model))

	lat, err := recallCheck(v, add)
	if err != nil {
		return out, err
	}
	start = time.Now()
	hits, err := v.Search(vault.SearchRequest{Query: nonsenseQuery})
	if err != nil {
		return out, err
	}
	lat = append(lat, msSince(start))
	out.NonsenseResults = len(hits)
	slices.Sort(lat)
	out.SearchP50MS, out.SearchMaxMS = lat[len(lat)/2], lat[len(lat)-1]
	out.OK = true
	for _, c := range out.Checks {
		out.OK = out.OK && c.OK
	}
	return out, nil
}

func modelCheck(m vault.ModelStatus) checkOut {
	c := checkOut{Name: "embedding model", OK: true}
	switch {
	case m.Pinned == "" && m.Loaded == "":
		c.Detail = "none: literal search only"
	case m.Loaded == "":
		c.OK, c.Detail = false, fmt.Sprintf("vault is pinned to %s but no model is loaded: semantic recall is off", m.Pinned)
	case m.Unembedded > 0:
		c.OK, c.Detail = false, fmt.Sprintf("%s loaded; %d memories have no vectors yet: the user should run `compartment reindex`", m.Loaded, m.Unembedded)
	default:
		c.Detail = m.Loaded + " loaded, every memory embedded"
	}
	return c
}

// recallCheck searches for a few memories spread over the vault by their
// own text and checks each comes back in its top 10. It returns the
// latencies in milliseconds.
func recallCheck(v *vault.Vault, add func(checkOut)) ([]float64, error) {
	all, err := v.Recent(vault.RecentRequest{Limit: math.MaxInt32, All: true})
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		add(checkOut{Name: "recall", OK: true, Detail: "the vault is empty: nothing to recall yet"})
		return nil, nil
	}
	n := min(selftestSamples, len(all))
	yes := true
	var lat []float64
	found := 0
	for i := range n {
		r := all[i*len(all)/n]
		start := time.Now()
		hits, err := v.Search(vault.SearchRequest{Query: r.Text, TopK: 10, Namespace: r.Namespace, IncludeReference: &yes})
		if err != nil {
			return nil, err
		}
		lat = append(lat, msSince(start))
		for _, h := range hits {
			if h.ID == r.ID {
				found++
				break
			}
		}
	}
	add(checkOut{Name: "recall", OK: found == n, MS: sum(lat),
		Detail: fmt.Sprintf("%d of %d memories found by their own text in the top 10", found, n)})
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
