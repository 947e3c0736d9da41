package api

import "github.com/compartment/compartment/internal/vault"

// Memory is one memory as memory_get, memory_recent and a store's
// conflicts return it: the claim with its provenance clause, times in
// RFC 3339 UTC, and the warning a quarantined one carries.
type Memory struct {
	ID           string   `json:"id"`
	Text         string   `json:"text"` // the claim with its provenance clause
	Source       string   `json:"source"`
	Discovered   string   `json:"discovered"`
	Created      string   `json:"created"`
	Namespace    string   `json:"namespace"`
	Tags         []string `json:"tags"`
	Importance   float64  `json:"importance"`
	Kind         string   `json:"kind"`
	Expires      string   `json:"expires,omitempty"`
	Supersedes   []string `json:"supersedes,omitempty"`
	SupersededBy string   `json:"superseded_by,omitempty"`
	SplitInto    []string `json:"split_into,omitempty"`
	Live         bool     `json:"live"`
	Quarantined  bool     `json:"quarantined,omitempty"`
	Warning      string   `json:"warning,omitempty"`
	Affirmed     string   `json:"affirmed,omitempty"`
	Caller       string   `json:"caller,omitempty"`
}

// MemoryOf is the shape of one record.
func MemoryOf(r *vault.Record) Memory {
	m := Memory{
		ID: r.ID, Text: r.Stamped(), Source: r.Source, Discovered: r.Discovered,
		Created: Stamp(r.Created), Namespace: r.Namespace, Tags: r.Tags, Importance: r.Importance,
		Kind: r.Kind, Expires: r.Expires, Supersedes: r.Supersedes, SupersededBy: r.SupersededBy,
		SplitInto: r.SplitInto, Live: r.Live(), Quarantined: r.Quarantined, Caller: r.Caller,
	}
	if m.Tags == nil {
		m.Tags = []string{}
	}
	if r.Quarantined {
		m.Warning = vault.QuarantineWarning
	}
	if !r.Affirmed.IsZero() {
		m.Affirmed = Stamp(r.Affirmed)
	}
	return m
}

// MemoriesOf is the shape of records, in their order.
func MemoriesOf(rs []*vault.Record) []Memory {
	out := make([]Memory, len(rs))
	for i, r := range rs {
		out[i] = MemoryOf(r)
	}
	return out
}

// List is memory_recent's answer: memories, with the notice that they are
// data.
type List struct {
	Notice  string   `json:"notice"`
	Count   int      `json:"count"`
	Results []Memory `json:"results"`
}

// Got is memory_get's answer.
type Got struct {
	Notice string `json:"notice"`
	Memory Memory `json:"memory"`
}

// Store is what happened to one store (`store --json`, memory_store, one
// fact of memory_store_many).
type Store struct {
	Stored     bool     `json:"stored"`
	ID         string   `json:"id,omitempty"`
	Duplicate  bool     `json:"duplicate,omitempty"`
	Reaffirmed bool     `json:"reaffirmed,omitempty"`
	Conflicts  []Memory `json:"conflicts,omitempty"`
	Superseded []string `json:"superseded,omitempty"`
	Linked     []string `json:"linked,omitempty"`
	Text       string   `json:"text,omitempty"`
	Discovered string   `json:"discovered,omitempty"`
	Expires    string   `json:"expires,omitempty"`
	Message    string   `json:"message,omitempty"`
	Notice     string   `json:"notice,omitempty"` // only with conflicts, which are recalled content
}

// StoreOf is the shape of a store's result; conflicts (recalled content)
// come with the notice that they are data.
func StoreOf(r vault.StoreResult) Store {
	o := Store{
		Stored: r.Stored, ID: r.ID, Duplicate: r.Duplicate, Reaffirmed: r.Reaffirmed,
		Superseded: r.Superseded, Linked: r.Linked, Text: r.Text, Discovered: r.Discovered, Expires: r.Expires, Message: r.Message,
	}
	if len(r.Conflicts) > 0 {
		o.Conflicts = MemoriesOf(r.Conflicts)
		o.Notice = vault.DataNotice
	}
	return o
}
