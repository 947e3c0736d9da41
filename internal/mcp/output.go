package mcp

import (
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// DataNotice travels with every result that carries recalled content. Memory
// can hold text an attacker planted (a web page, an email), so the host model
// is told, in the result itself, that it is reading data. The wording is the
// vault's, so the CLI and the server say the same.
const DataNotice = vault.DataNotice

// memoryOut is one memory as the tools return it.
type memoryOut struct {
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

func memoryOf(r *vault.Record) memoryOut {
	m := memoryOut{
		ID: r.ID, Text: r.Stamped(), Source: r.Source, Discovered: r.Discovered,
		Created: stamp(r.Created), Namespace: r.Namespace, Tags: r.Tags, Importance: r.Importance,
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
		m.Affirmed = stamp(r.Affirmed)
	}
	return m
}

func memoriesOf(rs []*vault.Record) []memoryOut {
	out := make([]memoryOut, len(rs))
	for i, r := range rs {
		out[i] = memoryOf(r)
	}
	return out
}

type listOut struct {
	Notice  string      `json:"notice"`
	Count   int         `json:"count"`
	Results []memoryOut `json:"results"`
}

type getOut struct {
	Notice string    `json:"notice"`
	Memory memoryOut `json:"memory"`
}

// storeOut is what happened to one memory_store or one fact of
// memory_store_many.
type storeOut struct {
	Stored     bool        `json:"stored"`
	ID         string      `json:"id,omitempty"`
	Duplicate  bool        `json:"duplicate,omitempty"`
	Reaffirmed bool        `json:"reaffirmed,omitempty"`
	Conflicts  []memoryOut `json:"conflicts,omitempty"`
	Superseded []string    `json:"superseded,omitempty"`
	Linked     []string    `json:"linked,omitempty"`
	Text       string      `json:"text,omitempty"`
	Discovered string      `json:"discovered,omitempty"`
	Expires    string      `json:"expires,omitempty"`
	Message    string      `json:"message,omitempty"`
	Notice     string      `json:"notice,omitempty"` // only with conflicts, which are recalled content
}

func storeOf(r vault.StoreResult) storeOut {
	o := storeOut{
		Stored: r.Stored, ID: r.ID, Duplicate: r.Duplicate, Reaffirmed: r.Reaffirmed,
		Superseded: r.Superseded, Linked: r.Linked, Text: r.Text, Discovered: r.Discovered, Expires: r.Expires, Message: r.Message,
	}
	if len(r.Conflicts) > 0 {
		o.Conflicts = memoriesOf(r.Conflicts)
		o.Notice = DataNotice
	}
	return o
}

type storeManyOut struct {
	Stored  int        `json:"stored"` // how many new records were written
	Results []storeOut `json:"results"`
}

type forgetOut struct {
	ID        string `json:"id"`
	Forgotten bool   `json:"forgotten"`
	Shredded  bool   `json:"shredded"`
}

type relationOut struct {
	ID        string `json:"id"`
	Subject   string `json:"subject"`
	Predicate string `json:"predicate"`
	Object    string `json:"object"`
	Src       string `json:"src,omitempty"`
	ValidFrom string `json:"valid_from,omitempty"`
	ValidTo   string `json:"valid_to,omitempty"`
	Namespace string `json:"namespace"`
	Caller    string `json:"caller,omitempty"`
	Created   string `json:"created"`
}

func relationOf(r *vault.Relation) relationOut {
	return relationOut{
		ID: r.ID, Subject: r.Subject, Predicate: r.Predicate, Object: r.Object, Src: r.Src,
		ValidFrom: r.From, ValidTo: r.To, Namespace: r.Namespace, Caller: r.Caller, Created: stamp(r.Created),
	}
}

type linkOut struct {
	Relation relationOut `json:"relation"`
}

type relationsOut struct {
	Notice    string        `json:"notice"`
	Count     int           `json:"count"`
	Truncated bool          `json:"truncated"`
	AsOf      string        `json:"as_of,omitempty"` // the day as_of was read as
	Relations []relationOut `json:"relations"`
}

type unlinkOut struct {
	ID       string `json:"id"`
	Unlinked bool   `json:"unlinked"`
}

type namespacesOut struct {
	Namespaces []vault.NamespaceInfo `json:"namespaces"`
}

type lockOut struct {
	Locked   bool     `json:"locked"`
	Problems []string `json:"problems,omitempty"`
}

type unlockOut struct {
	Locked bool `json:"locked"`
}

// stamp writes a time the way every tool result does: RFC 3339, UTC.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
