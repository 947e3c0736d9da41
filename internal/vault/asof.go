package vault

import (
	"fmt"
	"slices"
	"time"

	"github.com/compartment/compartment/internal/timephrase"
	"github.com/compartment/compartment/rank"
)

// asOf is the time a search reads the vault as of: a span of days (zero
// when the search reads it now).
type asOf struct{ timephrase.Span }

func (a asOf) dated() bool { return !a.End.IsZero() }

// asOfSpan is the time a request asks about: its AsOf day, or a past time
// its query names ("in March 2025", "last spring"); a span bounded by an
// event ("before we moved to Berlin") is dated by the memory that records
// the event, and dropped when no memory does. A time that runs to today
// or into the future reads the vault now.
func (v *Vault) asOfSpan(req SearchRequest) (asOf, error) {
	now := v.now().In(time.Local)
	if req.AsOf != "" {
		d, err := time.ParseInLocation(DateLayout, req.AsOf, time.Local)
		if err != nil {
			return asOf{}, invalidf("as_of %q: use a date like 2026-08-01", req.AsOf)
		}
		return asOf{timephrase.Span{Start: d, End: d}}, nil
	}
	if req.NoTimePhrase {
		return asOf{}, nil
	}
	span, ok := timephrase.Parse(req.Query, now)
	if !ok {
		return asOf{}, nil
	}
	if span.Event != "" {
		hits, err := v.Search(SearchRequest{Query: span.Event, Namespace: req.Namespace, NoTimePhrase: true,
			IncludeReference: new(false)})
		if err != nil {
			return asOf{}, fmt.Errorf("date %q: %w", span.Event, err)
		}
		if len(hits) == 0 || hits[0].Match == rank.MatchWeak {
			return asOf{}, nil
		}
		day, err := time.ParseInLocation(DateLayout, hits[0].Discovered, time.Local)
		if err != nil {
			day = hits[0].Created.In(time.Local)
		}
		span = span.Before(day)
	}
	if !span.Past(now) {
		return asOf{}, nil
	}
	return asOf{span}, nil
}

// validity is the first day a record was true (the day it was learned)
// and the day it stopped being true (the day its replacement was learned;
// zero while it is live).
func (v *Vault) validity(r *Record) (from, to time.Time) {
	from = learned(r)
	if next := v.st.records.peek(r.SupersededBy); next != nil {
		to = learned(next)
	}
	return from, to
}

func learned(r *Record) time.Time {
	if d, err := time.ParseInLocation(DateLayout, r.Discovered, time.Local); err == nil {
		return d
	}
	c := r.Created.In(time.Local)
	return time.Date(c.Year(), c.Month(), c.Day(), 0, 0, 0, 0, time.Local)
}

// validThen returns the replaced records the filter keeps that were true
// at some day of the span: learned by its end and replaced after its
// start. Records split by atomize are not among them: their pieces say
// the same.
func (v *Vault) validThen(a asOf, keep func(*Record) bool) []*Record {
	if !a.dated() {
		return nil
	}
	var out []*Record
	for _, r := range v.st.records.replaced() {
		if len(r.SplitInto) > 0 || !keep(r) {
			continue
		}
		from, to := v.validity(r)
		if !from.After(a.End) && (to.IsZero() || to.After(a.Start)) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(x, y *Record) int { return int(x.Seq) - int(y.Seq) })
	return out
}

// orderAsOf puts the memories that were true then first: those learned
// after the span come after those learned by its end (each group in score
// order), and each replaced memory that was true then comes before the
// memories that replaced it since and says that it was true then.
func (v *Vault) orderAsOf(a asOf, hits []SearchHit) []SearchHit {
	after := make(map[string]bool, len(hits))
	for _, h := range hits {
		after[h.ID] = v.learnedAfter(h.ID, a)
	}
	slices.SortStableFunc(hits, func(x, y SearchHit) int { return b2i(after[x.ID]) - b2i(after[y.ID]) })
	pos := map[string]int{}
	for i, h := range hits {
		pos[h.ID] = i
	}
	for i := 0; i < len(hits); i++ {
		r := v.st.records.peek(hits[i].ID)
		if r == nil || r.Live() {
			continue
		}
		_, to := v.validity(r)
		hits[i].ValidThen = fmt.Sprintf("true as of %s; replaced on %s by %s", a.End.Format(DateLayout), to.Format(DateLayout), r.SupersededBy)
		// The earliest-placed memory of its chain of replacements.
		first, steps := i, 0
		for next := v.st.records.peek(r.SupersededBy); next != nil && steps < 1000; next, steps = v.st.records.peek(next.SupersededBy), steps+1 {
			if j, ok := pos[next.ID]; ok && j < first {
				first = j
			}
			if next.Live() {
				break
			}
		}
		if first < i {
			h := hits[i]
			copy(hits[first+1:i+1], hits[first:i])
			hits[first] = h
			for k := first; k <= i; k++ {
				pos[hits[k].ID] = k
			}
		}
	}
	return hits
}

// learnedAfter reports whether the record was learned after the span.
func (v *Vault) learnedAfter(id string, a asOf) bool {
	r := v.st.records.peek(id)
	return r != nil && learned(r).After(a.End)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
