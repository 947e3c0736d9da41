package vault

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// memoryLine and relationLine are the JSONL lines of an export: every field
// of the memory or relation, and its type.
type memoryLine struct {
	Type string `json:"type"` // "memory"
	*Record
}

type relationLine struct {
	Type string `json:"type"` // "relation"
	*Relation
}

// Export writes every readable record (superseded ones too) and relation as
// plaintext JSONL and returns how many lines it wrote.
func (v *Vault) Export(w io.Writer) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return 0, err
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	recs := make([]*Record, 0, len(v.st.records))
	for _, r := range v.st.records {
		if v.canRead(r.Namespace) {
			recs = append(recs, r)
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Seq < recs[j].Seq })
	n := 0
	for _, r := range recs {
		if err := enc.Encode(memoryLine{"memory", r}); err != nil {
			return n, fmt.Errorf("export: %w", err)
		}
		n++
	}
	rels := v.relationsSorted()
	for _, rel := range rels {
		if err := enc.Encode(relationLine{"relation", rel}); err != nil {
			return n, fmt.Errorf("export: %w", err)
		}
		n++
	}
	return n, bw.Flush()
}

func (v *Vault) relationsSorted() []*Relation {
	out := make([]*Relation, 0, len(v.st.relations))
	for _, rel := range v.st.relations {
		if v.canRead(rel.Namespace) {
			out = append(out, rel)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// importLine is what import accepts: an exported line, or plain JSONL with
// only text (and optionally source, namespace, tags, discovered).
type importLine struct {
	Type         string    `json:"type"`
	ID           string    `json:"id"`
	Text         string    `json:"text"`
	Source       string    `json:"source"`
	Discovered   string    `json:"discovered"`
	Created      time.Time `json:"created"`
	Namespace    string    `json:"namespace"`
	Tags         []string  `json:"tags"`
	TagsOrigin   []string  `json:"tags_origin"`
	Importance   *float64  `json:"importance"`
	Kind         string    `json:"kind"`
	Expires      string    `json:"expires"`
	Supersedes   []string  `json:"supersedes"`
	SupersededBy string    `json:"superseded_by"`
	Quarantined  bool      `json:"quarantined"`
	Caller       string    `json:"caller"`
	Affirmed     time.Time `json:"affirmed"`
	Reference    bool      `json:"reference"`
	// relations
	Subject   string `json:"subject"`
	Predicate string `json:"predicate"`
	Object    string `json:"object"`
	Src       string `json:"src"`
	ValidFrom string `json:"valid_from"`
	ValidTo   string `json:"valid_to"`
}

// ImportResult counts what an import did. Every line that was not stored
// is skipped for one of three reasons, counted apart.
type ImportResult struct {
	Lines     int `json:"lines"`
	Stored    int `json:"stored"`
	Relations int `json:"relations"`
	Skipped   int `json:"skipped"`         // the three below together
	Present   int `json:"skipped_present"` // already in the vault: same id, same claim in the namespace, or same edge
	// Reference facts: the vault has its own (`reference update` loads
	// them), so a second copy would double every one.
	Reference int `json:"skipped_reference"`
	// Pack records (namespace packs/…): packs are installed whole, signed,
	// by `pack install`, never through an import.
	Packs int `json:"skipped_packs"`
}

func (r *ImportResult) add(o ImportResult) {
	r.Stored += o.Stored
	r.Relations += o.Relations
	r.Skipped += o.Skipped
	r.Present += o.Present
	r.Reference += o.Reference
	r.Packs += o.Packs
}

// skipReason says why an import line is not the user's own to import:
// it is a reference fact, or a pack's record (namespace packs/…, exactly
// as an export writes it: another spelling is refused as a reserved name).
func (l *importLine) skipReason() (reference, pack bool) {
	return l.Reference, isPack(l.Namespace)
}

// importBatch is how many lines share one embed call and one fsync.
const importBatch = 256

// MaxImportLine is the longest line import reads, in bytes. An export's
// line is one memory (at most a few KiB); the limit keeps memory bounded
// whatever the input is (/dev/zero has no newline at all).
const MaxImportLine = 1 << 20

// Import reads JSONL (an export, or plain lines with at least text) and
// stores it in batches of up to 256 lines, keeping ids and dates where
// given. Reference facts and pack records (and relations sourced from
// them) are skipped: the vault has its own, so an export imported into a
// new vault does not double them. Each batch (its records, relations and audit entries) commits as
// a unit with one fsync: a crash leaves whole batches, and running the
// same import again skips what is already stored. A malformed line stops
// the import before its batch is written and names the line; earlier
// batches stay stored. It reads the input as a stream: memory stays
// bounded by one batch, whatever the input's size.
func (v *Vault) Import(r io.Reader, defaultSource string, progress func(lines int)) (ImportResult, error) {
	var res ImportResult
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxImportLine)
	var pending []importLine
	var lineNos []int
	notOurs := map[string]skipKind{} // ids of skipped reference and pack records
	done := 0                        // the last line of the last batch committed
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		err := v.importBatch(pending, lineNos, defaultSource, notOurs, &res)
		if err == nil {
			done = lineNos[len(lineNos)-1]
		} else {
			err = importStopped(err, res, done)
		}
		pending, lineNos = pending[:0], lineNos[:0]
		if progress != nil {
			progress(res.Lines)
		}
		return err
	}
	for sc.Scan() {
		res.Lines++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var l importLine
		if err := json.Unmarshal([]byte(text), &l); err != nil {
			return res, importStopped(invalidf("import line %d is not a JSON object (%v)", res.Lines, err), res, done)
		}
		pending = append(pending, l)
		lineNos = append(lineNos, res.Lines)
		if len(pending) == importBatch {
			if err := flush(); err != nil {
				return res, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return res, invalidf("import line %d is longer than %d bytes, the limit for one line: the input is not JSONL (one memory per line)", res.Lines+1, MaxImportLine)
		}
		return res, fmt.Errorf("import: read line %d: %w", res.Lines+1, err)
	}
	return res, flush()
}

// skipKind is why a record of an import was not the user's own.
type skipKind uint8

const (
	skipReference skipKind = iota + 1
	skipPack
)

func (k skipKind) count(res *ImportResult) {
	res.Skipped++
	if k == skipPack {
		res.Packs++
	} else {
		res.Reference++
	}
}

// importStopped says what an import stopped by err left behind: batches
// commit whole, so exactly the lines up to the last committed batch.
func importStopped(err error, res ImportResult, done int) error {
	if done == 0 {
		return fmt.Errorf("%w; nothing was stored (lines are stored in whole batches of %d)", err, importBatch)
	}
	return fmt.Errorf("%w; lines 1-%d were stored (%d memories, %d relations, in whole batches of %d), nothing after them", err, done, res.Stored, res.Relations, importBatch)
}

// importBatch stores one batch of lines in one atomic update: records
// first, then relations (whose src may be a memory of this very batch).
// Reference facts and pack records are skipped (notOurs remembers their
// ids across batches, so a relation sourced from one is skipped too); the
// counts reach res only when the batch commits.
func (v *Vault) importBatch(lines []importLine, lineNos []int, defaultSource string, notOurs map[string]skipKind, res *ImportResult) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return err
	}
	today := v.today()
	var batch ImportResult
	var recs []*Record
	var relLines []int
	spellings := map[string]string{}
	for i, l := range lines {
		if l.Type == "relation" {
			relLines = append(relLines, i)
			continue
		}
		if ref, pack := l.skipReason(); ref || pack {
			kind := skipReference
			if pack {
				kind = skipPack
			}
			kind.count(&batch)
			if id := strings.ToLower(strings.TrimSpace(l.ID)); id != "" {
				notOurs[id] = kind
			}
			continue
		}
		r, err := v.importRecord(l, defaultSource, today)
		if err == nil {
			err = v.checkNamespaceCase(r.Namespace, spellings)
		}
		if err != nil {
			return fmt.Errorf("import line %d: %w", lineNos[i], err)
		}
		recs = append(recs, r)
	}
	recs = v.dropKnown(recs, &batch)
	chunk := make(map[string]*Record, len(recs))
	for _, r := range recs {
		chunk[r.ID] = r
	}
	var rels []*Relation
	known := map[string]bool{}
	if len(relLines) > 0 {
		for _, rel := range v.st.relations {
			known[rel.sameAs()] = true
		}
	}
	for _, i := range relLines {
		l := lines[i]
		if kind, ok := notOurs[strings.ToLower(strings.TrimSpace(l.Src))]; ok && l.Src != "" {
			kind.count(&batch)
			continue
		}
		if _, pack := l.skipReason(); pack {
			skipPack.count(&batch)
			continue
		}
		rel, err := v.importRelation(l, chunk)
		if err != nil {
			return fmt.Errorf("import line %d: %w", lineNos[i], err)
		}
		if _, ok := v.st.relations[rel.ID]; ok || known[rel.sameAs()] {
			batch.Skipped++
			batch.Present++
			continue
		}
		known[rel.sameAs()] = true
		rels = append(rels, rel)
	}
	if err := v.embedRecords(recs); err != nil {
		return err
	}
	err := v.update(func() ([]vaultfmt.Change, error) {
		b := v.newBatch()
		for _, r := range recs {
			b.seq++
			r.Seq = b.seq
			b.putRecord(r, "import")
		}
		for _, rel := range rels {
			b.putRelation(rel)
		}
		return b.changes, nil
	})
	if err != nil {
		return err
	}
	batch.Stored, batch.Relations = len(recs), len(rels)
	res.add(batch)
	return nil
}

// dropKnown skips records whose id is already present, or (without an id)
// whose claim is already in the namespace.
func (v *Vault) dropKnown(recs []*Record, res *ImportResult) []*Record {
	claims := map[string]bool{}
	for _, r := range v.st.records {
		claims[r.Namespace+"\x00"+normalizeClaim(r.Text)] = true
	}
	out := recs[:0]
	for _, r := range recs {
		key := r.Namespace + "\x00" + normalizeClaim(r.Text)
		if _, ok := v.st.records[r.ID]; ok || (r.ID == "" && claims[key]) {
			res.Skipped++
			res.Present++
			continue
		}
		claims[key] = true
		if r.ID == "" {
			id, err := newID()
			if err != nil {
				continue
			}
			r.ID = idString(id)
		}
		out = append(out, r)
	}
	return out
}

func (v *Vault) importRecord(l importLine, defaultSource string, today time.Time) (*Record, error) {
	text := strings.TrimSpace(l.Text)
	if text == "" {
		return nil, invalidf("no text")
	}
	if l.ID != "" {
		if _, ok := parseID(l.ID); !ok {
			return nil, invalidf("id %q is not 32 hex digits", l.ID)
		}
	}
	r := &Record{
		ID: strings.ToLower(l.ID), Text: text, Source: strings.TrimSpace(l.Source), Discovered: l.Discovered,
		Created: l.Created.UTC(), Namespace: l.Namespace, Tags: l.Tags, TagsOrigin: l.TagsOrigin,
		Importance: 0.5, Kind: l.Kind, Expires: l.Expires, Supersedes: l.Supersedes,
		SupersededBy: l.SupersededBy, Quarantined: l.Quarantined, Caller: v.caller,
		Affirmed: l.Affirmed.UTC(), Reference: l.Reference,
	}
	if r.Source == "" {
		r.Source = defaultSource
	}
	if err := checkSource(r.Source); err != nil {
		return nil, err
	}
	var err error
	if r.Tags, err = cleanTags(r.Tags); err != nil {
		return nil, err
	}
	if r.TagsOrigin, err = cleanTags(r.TagsOrigin); err != nil {
		return nil, err
	}
	if r.Namespace == "" {
		r.Namespace = v.cfg.DefaultNamespace(v.caller)
	}
	if err := checkNamespace(r.Namespace); err != nil {
		return nil, err
	}
	if err := v.checkWrite(r.Namespace); err != nil {
		return nil, err
	}
	if r.Discovered == "" {
		r.Discovered = today.Format(DateLayout)
	} else if _, err := time.Parse(DateLayout, r.Discovered); err != nil {
		return nil, invalidf("discovered %q is not a YYYY-MM-DD date", r.Discovered)
	}
	if r.Expires != "" {
		if _, err := time.Parse(DateLayout, r.Expires); err != nil {
			return nil, invalidf("expires %q is not a YYYY-MM-DD date", r.Expires)
		}
	}
	if l.Importance != nil {
		if err := checkImportance(*l.Importance); err != nil {
			return nil, err
		}
		r.Importance = min(max(*l.Importance, 0), 1)
	}
	if r.Kind == "" {
		r.Kind = KindFact
	}
	if r.Kind != KindFact && r.Kind != KindOpinion {
		return nil, invalidf("kind %q: allowed values are fact, opinion", r.Kind)
	}
	if r.Created.IsZero() {
		r.Created = v.now()
	}
	if r.Kind == KindOpinion && r.Affirmed.IsZero() {
		r.Affirmed = r.Created
	}
	if r.TagsOrigin == nil {
		r.TagsOrigin = r.Tags
	}
	return r, nil
}

// importRelation makes a relation of an import line. Its src may name a
// memory of the same batch (chunk), not yet in the vault. The author is
// the importing caller, never the line's own caller field.
func (v *Vault) importRelation(l importLine, chunk map[string]*Record) (*Relation, error) {
	req := LinkRequest{Subject: l.Subject, Predicate: l.Predicate, Object: l.Object,
		Src: l.Src, From: l.ValidFrom, To: l.ValidTo, Namespace: l.Namespace}
	local := chunk[strings.ToLower(strings.TrimSpace(l.Src))]
	if local != nil {
		req.Src = ""
		if req.Namespace == "" {
			req.Namespace = local.Namespace
		}
	}
	rel, err := v.newRelation(req)
	if err != nil {
		return nil, err
	}
	if local != nil {
		rel.Src = local.ID
	}
	if l.ID != "" {
		if _, ok := parseID(l.ID); !ok {
			return nil, invalidf("relation id %q is not 32 hex digits", l.ID)
		}
		rel.ID = strings.ToLower(l.ID)
	}
	if !l.Created.IsZero() {
		rel.Created = l.Created.UTC()
	}
	return rel, nil
}

// sameAs is what makes two relations the same edge, whatever their ids:
// a re-run import skips an edge already stored.
func (rel *Relation) sameAs() string {
	return strings.Join([]string{rel.Namespace, rel.Subject, rel.Predicate, rel.Object, rel.Src, rel.From, rel.To}, "\x00")
}
