package vault

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/compartment/compartment/vaultfmt"
)

// StoreRequest is one memory to store.
type StoreRequest struct {
	Text       string   `json:"text"`
	Source     string   `json:"source"`
	Namespace  string   `json:"namespace,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Importance *float64 `json:"importance,omitempty"` // nil: 0.5
	Discovered string   `json:"discovered,omitempty"` // YYYY-MM-DD; "" = today
	Expires    string   `json:"expires,omitempty"`    // YYYY-MM-DD or 14d/2w/3m/1y
	Kind       string   `json:"kind,omitempty"`       // fact (default) or opinion
	// Supersedes lists the records this one replaces. nil means "not
	// given": an opinion then checks for conflicts. An empty, non-nil list
	// deliberately keeps both.
	Supersedes  []string `json:"supersedes"`
	Quarantined bool     `json:"quarantined,omitempty"`
	// Raw bypasses the one-claim check (bulk loads, import).
	Raw bool `json:"-"`

	// Import only: keep these when given.
	ID      string    `json:"-"`
	Created time.Time `json:"-"`
}

// StoreResult says what happened to one request.
type StoreResult struct {
	ID         string    `json:"id,omitempty"`
	Stored     bool      `json:"stored"`
	Duplicate  bool      `json:"duplicate,omitempty"`  // an existing near-identical memory's id
	Reaffirmed bool      `json:"reaffirmed,omitempty"` // an existing opinion's date was refreshed
	Conflicts  []*Record `json:"conflicts,omitempty"`  // similar live opinions: resend with supersedes
	Superseded []string  `json:"superseded,omitempty"`
	// Linked are older opinions in namespaces the caller may only read,
	// linked as updated by this one instead of superseded.
	Linked     []string `json:"linked,omitempty"`
	Text       string   `json:"text,omitempty"` // the stamped claim
	Discovered string   `json:"discovered,omitempty"`
	Expires    string   `json:"expires,omitempty"`
	Message    string   `json:"message,omitempty"`

	updates []*Record // opinionCheck: read-only restatements to link
}

// Store validates and stores one memory. It returns after the write is
// durable (fsync).
func (v *Vault) Store(req StoreRequest) (StoreResult, error) {
	res, err := v.StoreMany([]StoreRequest{req})
	if err != nil {
		return StoreResult{}, err
	}
	return res[0], nil
}

// StoreMany validates every request before storing any: a bad one refuses
// the whole batch, naming its index. The batch is written with one fsync.
//
// Embedding a batch is the slow part (milliseconds a fact), so it runs
// without v.mu: the requests are checked and turned into records under
// the lock, embedded outside it, then checked again and placed under the
// lock, against the vault as it is by then. A memory a request supersedes
// that was forgotten in between refuses the batch as it would have
// before; a near-duplicate stored in between is found.
func (v *Vault) StoreMany(reqs []StoreRequest) ([]StoreResult, error) {
	first, err := v.lockedPrepare(reqs)
	if err != nil {
		return nil, err
	}
	if err := v.embedRecords(first); err != nil {
		return nil, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return nil, err
	}
	prepared, err := v.prepareAll(reqs)
	if err != nil {
		return nil, err
	}
	for i, r := range prepared {
		// prepare's text is a function of the request alone, so the
		// vectors made outside the lock are this record's.
		if r.Text != first[i].Text {
			return nil, fmt.Errorf("vault: fact %d changed while it was embedded (nothing in this batch was stored)", i)
		}
		r.Vectors = first[i].Vectors
	}
	results := make([]StoreResult, len(reqs))
	err = v.update(func() ([]vaultfmt.Change, error) {
		b := v.newBatch()
		for i, r := range prepared {
			results[i] = v.place(b, &reqs[i], r)
		}
		return b.changes, nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// lockedPrepare is [Vault.prepareAll] under v.mu, after catching up.
func (v *Vault) lockedPrepare(reqs []StoreRequest) ([]*Record, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return nil, err
	}
	return v.prepareAll(reqs)
}

// prepareAll prepares every request, refusing the batch at the first bad
// one. The caller holds v.mu.
func (v *Vault) prepareAll(reqs []StoreRequest) ([]*Record, error) {
	today := v.today()
	prepared := make([]*Record, len(reqs))
	spellings := map[string]string{}
	for i := range reqs {
		r, err := v.prepare(&reqs[i], today)
		if err == nil {
			err = v.checkNamespaceCase(r.Namespace, spellings)
		}
		if err != nil {
			if len(reqs) > 1 {
				return nil, fmt.Errorf("fact %d: %w (nothing in this batch was stored)", i, err)
			}
			return nil, err
		}
		prepared[i] = r
	}
	return prepared, nil
}

// prepare turns a request into a record, refusing bad input with a message
// that says what to do.
func (v *Vault) prepare(req *StoreRequest, today time.Time) (*Record, error) {
	text := strings.TrimSpace(req.Text)
	if text == "" {
		return nil, invalidf("text is empty: a memory is one claim, e.g. \"The staging database runs on port 5433\"")
	}
	if !req.Raw {
		if !hasWord(text) {
			// "compartment store -- -" stored a lone dash: nothing a
			// search could find or an agent could use.
			return nil, invalidf("the memory %q has no word or number in it: a memory is one claim, e.g. \"The staging database runs on port 5433\"", text)
		}
		if err := checkOneClaim(text, v.cfg.Settings.MaxMemoryChars); err != nil {
			return nil, err
		}
	}
	source := strings.TrimSpace(req.Source)
	if source == "" {
		return nil, invalidf("source is required: say how the fact was established in a few words, e.g. \"from chat\", \"read from pyproject.toml\", \"web search\"")
	}
	if err := checkSource(source); err != nil {
		return nil, err
	}
	kind := req.Kind
	if kind == "" {
		kind = KindFact
	}
	if kind != KindFact && kind != KindOpinion {
		return nil, invalidf("kind %q: allowed values are fact, opinion", req.Kind)
	}
	discovered := today.Format(DateLayout)
	if req.Discovered != "" {
		d, err := time.Parse(DateLayout, req.Discovered)
		if err != nil {
			return nil, invalidf("discovered %q: use a date like %s", req.Discovered, discovered)
		}
		if d.After(today.AddDate(0, 0, 1)) {
			return nil, invalidf("discovered %s is in the future: it is the date the fact was learned", req.Discovered)
		}
		discovered = d.Format(DateLayout)
	}
	expires, err := parseExpiry(req.Expires, today)
	if err != nil {
		return nil, err
	}
	ns := req.Namespace
	if ns == "" {
		ns = v.cfg.DefaultNamespace(v.caller)
	}
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	if err := v.checkWrite(ns); err != nil {
		return nil, err
	}
	importance := 0.5
	if req.Importance != nil {
		if err := checkImportance(*req.Importance); err != nil {
			return nil, err
		}
		importance = min(max(*req.Importance, 0), 1)
	}
	tags, err := cleanTags(req.Tags)
	if err != nil {
		return nil, err
	}
	if req.Supersedes != nil {
		// Prefixes resolve to whole ids here, so the store supersedes
		// exactly the records named.
		resolved := make([]string, 0, len(req.Supersedes))
		for _, id := range req.Supersedes {
			old, err := v.lookup(id)
			if err != nil {
				return nil, fmt.Errorf("supersedes %w", err)
			}
			// An opinion in a namespace the caller may only read is
			// linked as updated instead ([PredicateUpdates]).
			if err := v.checkWrite(old.Namespace); err != nil && (kind != KindOpinion || old.Kind != KindOpinion) {
				return nil, fmt.Errorf("supersedes %s: %w", id, err)
			}
			resolved = append(resolved, old.ID)
		}
		req.Supersedes = resolved
	}
	r := &Record{
		ID: req.ID, Text: text, Source: source, Discovered: discovered,
		Created: req.Created, Namespace: ns, Tags: tags, TagsOrigin: tags,
		Importance: importance, Kind: kind, Expires: expires,
		Quarantined: req.Quarantined, Caller: v.caller,
	}
	if r.Created.IsZero() {
		r.Created = v.now()
	}
	if kind == KindOpinion {
		r.Affirmed = r.Created
	}
	return r, nil
}

var (
	listLine    = regexp.MustCompile(`(?m)^\s*([-*•+‣◦▪]|\d{1,3}[.)])\s+\S`)
	headingLine = regexp.MustCompile(`(?m)^\s{0,3}#{1,6}\s+\S|^.+\n\s*(=+|-{3,})\s*$`)
	paragraphs  = regexp.MustCompile(`\n\s*\n`)
)

// hasWord reports whether text holds a letter or a digit.
func hasWord(text string) bool {
	return strings.IndexFunc(text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// checkOneClaim refuses text that is not one short claim.
func checkOneClaim(text string, maxChars int) error {
	const how = "store one claim per memory: split it into separate facts and store each (memory_store_many, or `compartment import`, stores a batch in one call)"
	if maxChars > 0 {
		if n := utf8.RuneCountInString(text); n > maxChars {
			return invalidf("the memory is %d characters and the limit is %d (max_memory_chars): %s", n, maxChars, how)
		}
	}
	switch {
	case headingLine.MatchString(text):
		return invalidf("the memory contains a heading: %s", how)
	case listLine.MatchString(text):
		return invalidf("the memory contains a list: %s", how)
	case paragraphs.MatchString(text):
		return invalidf("the memory has several paragraphs: %s", how)
	}
	return nil
}

var durationRE = regexp.MustCompile(`^(\d{1,4})([dwmy])$`)

// parseExpiry accepts a date (YYYY-MM-DD) or a duration from today (14d,
// 2w, 3m, 1y) and returns the last day the memory is true.
func parseExpiry(s string, today time.Time) (string, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "" {
		return "", nil
	}
	if m := durationRE.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		d := today
		switch m[2] {
		case "d":
			d = d.AddDate(0, 0, n)
		case "w":
			d = d.AddDate(0, 0, 7*n)
		case "m":
			d = d.AddDate(0, n, 0)
		case "y":
			d = d.AddDate(n, 0, 0)
		}
		return d.Format(DateLayout), nil
	}
	d, err := time.Parse(DateLayout, s)
	if err != nil {
		return "", invalidf("expires %q: use the last day the fact is true (e.g. %s) or a duration like 14d, 2w, 3m, 1y", s, today.AddDate(0, 0, 14).Format(DateLayout))
	}
	if d.Before(today) {
		return "", invalidf("expires %s is already past: the memory would be removed at once", s)
	}
	return d.Format(DateLayout), nil
}

var namespaceRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}(/[A-Za-z0-9][A-Za-z0-9._-]{0,63}){0,3}$`)

func checkNamespace(ns string) error {
	if !namespaceRE.MatchString(ns) {
		return invalidf("namespace %q: use letters, digits, '.', '_' or '-', optionally in up to 4 parts separated by '/' (e.g. \"main\", \"work/northwind\")", ns)
	}
	if canon, ok := reservedLookAlike(ns); ok {
		return invalidf("namespace %q differs from the reserved %q only in case: reserved names are reserved in every spelling, so use %q", ns, canon, canon)
	}
	return nil
}

// reservedLookAlike reports whether ns spells a reserved namespace in
// another case, and the spelling to use: its first part is "main" or
// "packs" in any case but that one ("MAIN", "Main/x", "PACKS/ops"), so
// "MAIN/x" can never sit beside "main/x" or dodge a grant written for
// "main/*". The rest of the name keeps its case.
func reservedLookAlike(ns string) (string, bool) {
	first, rest, nested := strings.Cut(ns, "/")
	lower := strings.ToLower(first)
	if lower == first || (lower != "main" && lower != "packs") {
		return "", false
	}
	if nested {
		return lower + "/" + rest, true
	}
	return lower, true
}

// Input bounds. A source says how a fact was established in a few words;
// a long one would carry a second claim past the one-claim check.
const (
	MaxSourceChars = 200
	MaxTags        = 32
	MaxTagBytes    = 64
)

// checkSource refuses a source that is not a short phrase.
func checkSource(source string) error {
	if n := utf8.RuneCountInString(source); n > MaxSourceChars {
		return invalidf("source is %d characters and the limit is %d: say how the fact was established in a few words (the claim belongs in text)", n, MaxSourceChars)
	}
	if strings.ContainsAny(source, "\n\r") {
		return invalidf("source has a line break: say how the fact was established in a few words on one line")
	}
	return nil
}

// checkImportance refuses a number that is not finite (NaN, ±Inf), which
// JSON could not export again.
func checkImportance(x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return invalidf("importance %v is not a number from 0 to 1 (e.g. 0.8)", x)
	}
	return nil
}

func cleanTags(tags []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if len(t) > MaxTagBytes || strings.ContainsAny(t, ",\n\t") {
			return nil, invalidf("tag %q: a tag is one short label (at most %d bytes) without commas or line breaks", truncateRunes(t, 40), MaxTagBytes)
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
		if len(out) > MaxTags {
			return nil, invalidf("%d tags or more: a memory takes at most %d tags", len(out), MaxTags)
		}
	}
	return out, nil
}

// truncateRunes shortens s to at most n runes for an error message.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// today is the current calendar day, local time.
func (v *Vault) today() time.Time {
	y, m, d := v.now().In(time.Local).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// checkWrite refuses a store into a namespace the caller may not write.
func (v *Vault) checkWrite(ns string) error {
	if a := v.cfg.Access(v.caller, ns); a != AccessRW {
		return fmt.Errorf("%w: caller %q has %s access to namespace %q (grants are in %s)", ErrDenied, v.caller, a, ns, ConfigPath(v.path))
	}
	return nil
}

// canRead reports whether the caller may read namespace ns.
func (v *Vault) canRead(ns string) bool {
	a := v.cfg.Access(v.caller, ns)
	return a == AccessRW || a == AccessRO
}

// embedRecords computes window vectors for records that need them. It
// reads only the encoder and the settings, fixed when the vault opened,
// so StoreMany calls it without v.mu on records no one else holds.
func (v *Vault) embedRecords(recs []*Record) error {
	if v.enc == nil {
		return nil
	}
	texts := make([]string, len(recs))
	for i, r := range recs {
		texts[i] = r.Text
	}
	docs, err := v.enc.EmbedDocuments(texts)
	if err != nil {
		return fmt.Errorf("embed: %w", err)
	}
	for i, d := range docs {
		recs[i].Vectors = newVectors(v.enc.Info().SHA256, d.Vectors, v.cfg.Settings.Int8Vectors)
	}
	return nil
}
