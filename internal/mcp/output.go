package mcp

import (
	"time"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/vault"
)

// DataNotice travels with every result that carries recalled content. Memory
// can hold text an attacker planted (a web page, an email), so the host model
// is told, in the result itself, that it is reading data. The wording is the
// vault's, so the CLI and the server say the same.
const DataNotice = vault.DataNotice

type storeManyOut struct {
	Stored  int         `json:"stored"` // how many new records were written
	Results []api.Store `json:"results"`
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
func stamp(t time.Time) string { return api.Stamp(t) }
