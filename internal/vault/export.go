package vault

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
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
	recs := make([]*Record, 0, v.st.records.len())
	for _, r := range v.st.records.all() {
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
	mem := boundImportMemory()
	defer mem.done()
	defer v.importDone(v.importStart(), mem)
	var res ImportResult
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxImportLine)
	var pending []importLine
	var lineNos []int
	notOurs := map[string]skipKind{} // ids of skipped reference and pack records
	known := &importKnown{}          // what the vault holds, kept across batches
	done := 0                        // the last line of the last batch committed
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		err := v.importBatch(pending, lineNos, defaultSource, notOurs, known, &res)
		if err == nil {
			done = lineNos[len(lineNos)-1]
		} else {
			err = importStopped(err, res, done)
		}
		pending, lineNos = pending[:0], lineNos[:0]
		mem.after()
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

// importStart notes that an import runs, so its batches compact only
// when the journal outgrows the payload (each compaction then rewrites at
// least twice what the last one did, and all of an import's rewrites add
// up to about twice the vault it leaves) and not also once a minute: at a
// minute a checkpoint, an import of 100,000 memories on a loaded machine
// rewrote the whole vault twice more, each time holding a second copy of
// the index while it was written, and one of a million memories would
// rewrite it once a minute for as long as it ran. It returns whether an
// import was running already (nested imports leave the flag to the outer
// one).
func (v *Vault) importStart() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	was := v.importing
	v.importing = true
	return was
}

// importDone ends what importStart began and writes the checkpoint the
// import left due, so the next open does not replay its journal. It waits
// for that compaction (and any the last batch started) under the import's
// memory bound: a compaction holds a second copy of the index while it
// writes it, and once the bound was put back the one that ran at Close,
// after an import of 96,211 memories, took the process from 607 MB to
// over 1 GB.
func (v *Vault) importDone(nested bool, mem *importMemory) {
	if nested {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.importing = false
	v.waitBuild()
	if v.file == nil || v.readOnly || !v.st.needsCheckpoint(v.file.JournalFrames()) {
		return
	}
	mem.after()
	v.st.lastCheckpoint = v.now()
	// The data is in the journal: a failed checkpoint loses nothing, and
	// the next write (or Close) retries.
	if err := v.compactSoon(); err == nil {
		v.waitBuild()
	}
}

// importMemory bounds an import's heap to a little above the vault's own.
// An import holds nothing per line beyond its batch (the claim table is a
// hash and a shared id per record); what grows is the vault's live heap,
// and at Go's default the heap may reach twice that before a collection,
// with each batch's garbage (decoded lines, sealed frames, embedding
// scratch) and a checkpoint's transient copies on top. After each batch
// it sets a soft memory limit (debug.SetMemoryLimit) of the live heap the
// last collection found, times importHeadroom, plus importSlack: the
// collector then works harder only when a checkpoint or a compaction
// pushes the heap up, not between batches. A GOMEMLIMIT in the
// environment, or a lower limit set by the caller, wins; the limit in
// force before is put back at the end.
type importMemory struct {
	prev    int64
	enabled bool
}

const (
	importHeadroom = 1.5
	importSlack    = 64 << 20
)

func boundImportMemory() *importMemory {
	m := &importMemory{prev: debug.SetMemoryLimit(-1)}
	m.enabled = os.Getenv("GOMEMLIMIT") == "" && m.prev == math.MaxInt64
	return m
}

// after sets the limit from the live heap now.
func (m *importMemory) after() {
	if !m.enabled {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	live := float64(sample[0].Value.Uint64())
	debug.SetMemoryLimit(int64(live*importHeadroom) + importSlack)
}

// done puts the limit back.
func (m *importMemory) done() { debug.SetMemoryLimit(m.prev) }

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
func (v *Vault) importBatch(lines []importLine, lineNos []int, defaultSource string, notOurs map[string]skipKind, have *importKnown, res *ImportResult) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return err
	}
	have.sync(v)
	stored := false
	defer func() {
		if !stored { // what the batch noted as present is not stored
			have.reset()
		}
	}()
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
	recs = v.dropKnown(recs, have, &batch)
	chunk := make(map[string]*Record, len(recs))
	for _, r := range recs {
		chunk[r.ID] = r
	}
	var rels []*Relation
	known := have.edges(v)
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
	stored = true
	have.committed(v)
	batch.Stored, batch.Relations = len(recs), len(rels)
	res.add(batch)
	return nil
}

// dropKnown skips records whose id is already present, or (without an id)
// whose claim is already in the namespace (have, kept across the batches
// of an import, answers that without reading every record per batch).
func (v *Vault) dropKnown(recs []*Record, have *importKnown, res *ImportResult) []*Record {
	out := recs[:0]
	batch := map[string]*Record{} // the batch's records, by id, not yet in the state
	for _, r := range recs {
		key := claimKey(r)
		if _, ok := v.st.records.lookup(r.ID); ok || (r.ID == "" && have.holdsClaim(v, batch, key)) {
			res.Skipped++
			res.Present++
			continue
		}
		if r.ID == "" {
			id, err := newID()
			if err != nil {
				continue
			}
			r.ID = idString(id)
		}
		have.addClaim(key, r.ID)
		batch[r.ID] = r
		out = append(out, r)
	}
	return out
}

// claimKey is what makes two records the same claim: the namespace and
// the claim's words, up to case and punctuation.
func claimKey(r *Record) string { return r.Namespace + "\x00" + normalizeClaim(r.Text) }

// importKnown is what an import knows the vault holds: the claims of its
// records and its relations' edges. It is built once, from the state, and
// kept across batches, each batch adding what it stores, so an import of
// N lines reads the vault's records once rather than once per batch
// (which made a large import quadratic: 4,000 batches of a
// 1,000,000-line file each normalising up to a million claims). When
// another writer changed the vault between two batches (the state's
// fingerprint moved by more than this import's own batch) it is rebuilt.
//
// Claims are kept by a 64-bit hash of their key, naming one record that
// has it: a hash that matches is confirmed on that record's own claim, so
// a collision never skips a different claim. No text is copied (the id
// string is shared with the record); at a million records the table is
// about 50 MB.
type importKnown struct {
	built  bool
	mark   stateMark
	claims map[uint64]string // claim key hash → id of a record with it
	seed   maphash.Seed
	rels   map[string]bool // nil until a batch has relations
}

// stateMark is a fingerprint of the state that moves with every write.
type stateMark struct {
	seq, audit     uint64
	records, edges int
}

func markOf(v *Vault) stateMark {
	return stateMark{seq: v.st.maxSeq, audit: v.st.audit.head, records: v.st.records.len(), edges: len(v.st.relations)}
}

// sync rebuilds the table when the state is not the one the last batch
// left (or nothing is built yet).
func (k *importKnown) sync(v *Vault) {
	if k.built && markOf(v) == k.mark {
		return
	}
	k.reset()
	k.built, k.seed = true, maphash.MakeSeed()
	k.claims = make(map[uint64]string, v.st.records.len())
	for _, r := range v.st.records.all() {
		k.addClaim(claimKey(r), r.ID)
	}
	k.mark = markOf(v)
}

// reset forgets everything: the next batch rebuilds.
func (k *importKnown) reset() { *k = importKnown{} }

// committed notes that the batch is stored: the state now is the one it
// left.
func (k *importKnown) committed(v *Vault) { k.mark = markOf(v) }

func (k *importKnown) hash(key string) uint64 { return maphash.String(k.seed, key) }

// holdsClaim reports whether a record with this claim key is in the
// vault or among batch (the records of this batch kept so far).
func (k *importKnown) holdsClaim(v *Vault, batch map[string]*Record, key string) bool {
	id, ok := k.claims[k.hash(key)]
	if !ok {
		return false
	}
	r := v.st.records.get(id)
	if r == nil {
		r = batch[id]
	}
	if r != nil && claimKey(r) == key {
		return true
	}
	// A hash collision (about one import in 10^8 at a million records):
	// the exact answer, read the slow way.
	for _, o := range v.st.records.all() {
		if claimKey(o) == key {
			return true
		}
	}
	for _, o := range batch {
		if claimKey(o) == key {
			return true
		}
	}
	return false
}

// addClaim notes that record id has the claim key, keeping the first
// record known with it.
func (k *importKnown) addClaim(key, id string) {
	h := k.hash(key)
	if _, ok := k.claims[h]; !ok {
		k.claims[h] = id
	}
}

// edges returns the set of the vault's edges (see [Relation.sameAs]),
// built at the first batch that needs it; the caller adds to it the edges
// it stores.
func (k *importKnown) edges(v *Vault) map[string]bool {
	if k.rels == nil {
		k.rels = make(map[string]bool, len(v.st.relations))
		for _, rel := range v.st.relations {
			k.rels[rel.sameAs()] = true
		}
	}
	return k.rels
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
