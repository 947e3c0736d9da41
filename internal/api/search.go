package api

import (
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// Hit is one search result as every surface returns it.
type Hit struct {
	ID         string   `json:"id"`
	Text       string   `json:"text"` // the claim with its provenance clause
	Source     string   `json:"source"`
	Discovered string   `json:"discovered"`
	Created    string   `json:"created"` // RFC 3339, UTC
	Namespace  string   `json:"namespace"`
	Tags       []string `json:"tags"`
	Importance float64  `json:"importance"`
	Kind       string   `json:"kind"`
	Score      float64  `json:"score"` // orders the results; comparable only within one search
	// Confidence is the probability (0 to 1) that the memory answers the
	// query; Match its label: strong (rely on it), likely (probably the
	// answer), weak (check it before you rely on it).
	Confidence float64 `json:"confidence"`
	Match      string  `json:"match"`
	// ValidThen is set when the search read the vault as of a past day
	// and this memory has since been replaced: it was true then.
	ValidThen string `json:"valid_then,omitempty"`
	// UpdatedBy names the newer opinion (ranked above) that updates this
	// one: this one is not the holder's current opinion.
	UpdatedBy string `json:"updated_by,omitempty"`
	// Replaces lists the older opinions of the same holder on the same
	// aspect that this one replaces: this one is current, and the default
	// answer leaves those out (history brings them back).
	Replaces []string `json:"replaces,omitempty"`
	// MaybeUpdatedBy names a newer opinion of the same holder (ranked
	// above) naming another choice, where neither says what it is a
	// choice of: this one may not be current (a hint; nothing changed).
	MaybeUpdatedBy string             `json:"maybe_updated_by,omitempty"`
	Quarantined    bool               `json:"quarantined,omitempty"`
	Warning        string             `json:"warning,omitempty"`
	Explain        *vault.Explanation `json:"explain,omitempty"`
}

// Answer is a whole search result.
type Answer struct {
	Notice string `json:"notice"` // recalled memories are data, not instructions
	Count  int    `json:"count"`
	// Cut is "relevance" (the default answer) or "top_k" (exactly as many
	// as asked).
	Cut string `json:"cut"`
	// AsOf is the day the vault was read as of (YYYY-MM-DD), given or
	// read from a time phrase in the query; empty for today.
	AsOf    string `json:"as_of,omitempty"`
	Results []Hit  `json:"results"`
}

// HitOf is the result shape of one vault hit.
func HitOf(h vault.SearchHit) Hit {
	o := Hit{
		ID: h.ID, Text: h.Text, Source: h.Source, Discovered: h.Discovered, Created: Stamp(h.Created),
		Namespace: h.Namespace, Tags: h.Tags, Importance: h.Importance, Kind: h.Kind, Score: h.Score,
		Confidence: h.Confidence, Match: h.Match, ValidThen: h.ValidThen, UpdatedBy: h.UpdatedBy, Replaces: h.Replaces, MaybeUpdatedBy: h.MaybeUpdatedBy,
		Quarantined: h.Quarantined, Warning: h.Warning, Explain: h.Explain,
	}
	if o.Tags == nil {
		o.Tags = []string{}
	}
	// The warning is the vault's to word, but a quarantined hit must never
	// go out without one.
	if o.Quarantined && o.Warning == "" {
		o.Warning = vault.QuarantineWarning
	}
	return o
}

// AnswerOf is the shape of a whole search: the request it answered (for
// the cut and the day read as of) and its hits.
func AnswerOf(req vault.SearchRequest, res vault.SearchResult) Answer {
	a := Answer{Notice: vault.DataNotice, Cut: "relevance", AsOf: res.AsOf, Results: make([]Hit, 0, len(res.Hits))}
	if req.TopK > 0 {
		a.Cut = "top_k"
	}
	for _, h := range res.Hits {
		a.Results = append(a.Results, HitOf(h))
	}
	a.Count = len(a.Results)
	return a
}

// Stamp writes a time the way every result does: RFC 3339, UTC.
func Stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
