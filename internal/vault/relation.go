package vault

import (
	"fmt"
	"time"
)

// Relation is one edge of the memory graph: subject –predicate→ object,
// optionally tied to a memory (Src) and to a validity window.
type Relation struct {
	ID        string    `json:"id"`
	Subject   string    `json:"subject"`
	Predicate string    `json:"predicate"`
	Object    string    `json:"object"`
	Src       string    `json:"src,omitempty"`
	From      string    `json:"valid_from,omitempty"` // YYYY-MM-DD, inclusive
	To        string    `json:"valid_to,omitempty"`   // YYYY-MM-DD, inclusive
	Namespace string    `json:"namespace"`
	Caller    string    `json:"caller"`
	Created   time.Time `json:"created"`
}

// Relation field tags. Part of the format: do not change.
const (
	relSubject   = 1
	relPredicate = 2
	relObject    = 3
	relSrc       = 4
	relFrom      = 5
	relTo        = 6
	relNamespace = 7
	relCaller    = 8
	relCreated   = 9
)

func encodeRelation(r *Relation) []byte {
	w := newFieldWriter()
	w.str(relSubject, r.Subject)
	w.str(relPredicate, r.Predicate)
	w.str(relObject, r.Object)
	w.str(relSrc, r.Src)
	w.str(relFrom, r.From)
	w.str(relTo, r.To)
	w.str(relNamespace, r.Namespace)
	w.str(relCaller, r.Caller)
	w.time(relCreated, r.Created)
	return w.buf
}

func decodeRelation(id string, body []byte) (*Relation, error) {
	fr, err := newFieldReader(body)
	if err != nil {
		return nil, err
	}
	r := &Relation{ID: id}
	for tag, v, ok := fr.next(); ok; tag, v, ok = fr.next() {
		switch tag {
		case relSubject:
			r.Subject = string(v)
		case relPredicate:
			r.Predicate = string(v)
		case relObject:
			r.Object = string(v)
		case relSrc:
			r.Src = string(v)
		case relFrom:
			r.From = string(v)
		case relTo:
			r.To = string(v)
		case relNamespace:
			r.Namespace = string(v)
		case relCaller:
			r.Caller = string(v)
		case relCreated:
			r.Created, err = readTime(v)
		}
		if err != nil {
			return nil, fmt.Errorf("relation %s: %w", id, err)
		}
	}
	if fr.err != nil {
		return nil, fmt.Errorf("relation %s: %w", id, fr.err)
	}
	return r, nil
}
