package vault

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/compartment/compartment/vaultfmt"
)

// AtomizeItem is one memory that is not one claim, as `atomize --out`
// writes it for an agent to split: the agent fills Pieces and hands the
// file back to `atomize --apply`.
type AtomizeItem struct {
	ID         string   `json:"id"`
	Text       string   `json:"text"`
	Source     string   `json:"source"`
	Discovered string   `json:"discovered"`
	Namespace  string   `json:"namespace"`
	Reason     string   `json:"reason"`
	Pieces     []string `json:"pieces"`
}

// AtomizeCandidates lists the live memories the caller may write whose
// text the store would refuse today: over max_memory_chars, or holding a
// list, a heading or several paragraphs. Reference facts are left out
// (they are curated, and packs are read-only). Oldest first.
func (v *Vault) AtomizeCandidates() ([]AtomizeItem, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return nil, err
	}
	var recs []*Record
	for _, r := range v.st.records.all() {
		if r.Live() && !r.Reference && v.checkWrite(r.Namespace) == nil {
			recs = append(recs, r)
		}
	}
	slices.SortFunc(recs, func(a, b *Record) int { return cmp.Compare(a.Seq, b.Seq) })
	var out []AtomizeItem
	for _, r := range recs {
		err := checkOneClaim(r.Text, v.cfg.Settings.MaxMemoryChars)
		if err == nil {
			continue
		}
		reason := strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": ")
		reason, _, _ = strings.Cut(reason, ": store one claim")
		out = append(out, AtomizeItem{ID: r.ID, Text: r.Text, Source: r.Source, Discovered: r.Discovered,
			Namespace: r.Namespace, Reason: reason, Pieces: []string{}})
	}
	return out, nil
}

// AtomizeResult says what an applied plan did.
type AtomizeResult struct {
	Split  int                 `json:"split"`  // originals superseded
	Stored int                 `json:"stored"` // pieces stored
	Pieces map[string][]string `json:"pieces"` // original id -> piece ids
}

// atomizeLine is one line of a plan: the original's id and its pieces
// (other fields of [AtomizeItem] may be present and are ignored).
type atomizeLine struct {
	ID     string   `json:"id"`
	Pieces []string `json:"pieces"`
}

// ApplyAtomize reads a plan (JSONL, one [AtomizeItem] a line, Pieces
// filled in) and replaces each original by its pieces. Every line is
// checked before anything is written, and the whole plan is one write: a
// bad line refuses the plan, naming the line, and changes nothing. Each
// piece must be one claim by the store's own rule; it keeps the
// original's source, dates, namespace, tags, importance and kind. The
// original is superseded, stays readable by id, and lists its pieces.
func (v *Vault) ApplyAtomize(plan io.Reader, progress func(done, total int)) (AtomizeResult, error) {
	lines, err := readAtomizePlan(plan)
	if err != nil {
		return AtomizeResult{}, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return AtomizeResult{}, err
	}
	originals, err := v.checkAtomizePlan(lines)
	if err != nil {
		return AtomizeResult{}, err
	}
	var pieces []*Record
	owner := map[*Record]*Record{}
	for i, l := range lines {
		for _, text := range l.Pieces {
			p := pieceOf(originals[i], strings.TrimSpace(text))
			pieces = append(pieces, p)
			owner[p] = originals[i]
		}
	}
	if err := v.embedInChunks(pieces, progress); err != nil {
		return AtomizeResult{}, err
	}
	res := AtomizeResult{Pieces: map[string][]string{}}
	err = v.update(func() ([]vaultfmt.Change, error) {
		b := v.newBatch()
		for _, p := range pieces {
			id, err := newID()
			if err != nil {
				return nil, err
			}
			p.ID = idString(id)
			b.seq++
			p.Seq = b.seq
			orig := owner[p]
			p.Supersedes = []string{orig.ID}
			b.putRecord(p, "atomize")
			res.Pieces[orig.ID] = append(res.Pieces[orig.ID], p.ID)
		}
		for _, orig := range originals {
			next := *b.current(orig.ID)
			next.SplitInto = res.Pieces[orig.ID]
			next.SupersededBy = next.SplitInto[0]
			b.putRecord(&next, "supersede")
		}
		return b.changes, nil
	})
	if err != nil {
		return AtomizeResult{}, err
	}
	res.Split, res.Stored = len(originals), len(pieces)
	return res, nil
}

func readAtomizePlan(plan io.Reader) ([]atomizeLine, error) {
	sc := bufio.NewScanner(plan)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var lines []atomizeLine
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var l atomizeLine
		if err := json.Unmarshal([]byte(text), &l); err != nil {
			return nil, invalidf("plan line %d is not JSON (%v): nothing was changed", n, err)
		}
		l.ID = fmt.Sprintf("%d\x00%s", n, l.ID) // keep the line number with the id until checked
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("vault: read atomize plan: %w", err)
	}
	if len(lines) == 0 {
		return nil, invalidf("the plan is empty: write it with `compartment atomize --out FILE`, fill in each line's pieces, then apply it")
	}
	return lines, nil
}

// checkAtomizePlan resolves every line's original and checks every piece,
// returning the originals in line order. The caller holds v.mu.
func (v *Vault) checkAtomizePlan(lines []atomizeLine) ([]*Record, error) {
	originals := make([]*Record, len(lines))
	seen := map[string]int{}
	for i := range lines {
		lineNo, id, _ := strings.Cut(lines[i].ID, "\x00")
		lines[i].ID = id
		fail := func(format string, args ...any) error {
			return invalidf("plan line %s: %s: nothing was changed", lineNo, fmt.Sprintf(format, args...))
		}
		r, err := v.lookup(id)
		if err != nil {
			return nil, fail("memory %q: %v", id, err)
		}
		switch {
		case !r.Live():
			return nil, fail("memory %s is already superseded by %s", r.ID, r.SupersededBy)
		case v.checkWrite(r.Namespace) != nil:
			return nil, fail("%v", v.checkWrite(r.Namespace))
		case seen[r.ID] > 0:
			return nil, fail("memory %s is also on line %d", r.ID, seen[r.ID])
		case len(lines[i].Pieces) == 0:
			return nil, fail("no pieces: split the memory into one claim per piece, or delete the line to leave it as it is")
		}
		n := 0
		fmt.Sscan(lineNo, &n)
		seen[r.ID] = n
		for j, p := range lines[i].Pieces {
			p = strings.TrimSpace(p)
			if p == "" {
				return nil, fail("piece %d is empty", j+1)
			}
			if err := checkOneClaim(p, v.cfg.Settings.MaxMemoryChars); err != nil {
				msg := strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": ")
				msg, _, _ = strings.Cut(msg, ": store one claim")
				return nil, fail("piece %d is not one claim (%s)", j+1, strings.TrimPrefix(msg, "the memory "))
			}
		}
		originals[i] = r
	}
	return originals, nil
}

// pieceOf is a new record for one piece of orig: its text, everything
// else the original's (source, dates, namespace, tags, importance, kind).
func pieceOf(orig *Record, text string) *Record {
	return &Record{
		Text: text, Source: orig.Source, Discovered: orig.Discovered, Created: orig.Created,
		Namespace: orig.Namespace, Tags: slices.Clone(orig.Tags), TagsOrigin: slices.Clone(orig.TagsOrigin),
		Importance: orig.Importance, Kind: orig.Kind, Expires: orig.Expires, Quarantined: orig.Quarantined,
		Caller: orig.Caller, Affirmed: orig.Affirmed,
	}
}

// embedInChunks embeds records a few hundred at a time, reporting
// progress, so a large plan shows it is moving.
func (v *Vault) embedInChunks(recs []*Record, progress func(done, total int)) error {
	const chunk = 256
	for lo := 0; lo < len(recs); lo += chunk {
		if err := v.embedRecords(recs[lo:min(lo+chunk, len(recs))]); err != nil {
			return err
		}
		if progress != nil {
			progress(min(lo+chunk, len(recs)), len(recs))
		}
	}
	return nil
}
