package bench

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/rank"
	"github.com/compartment/compartment/vaultfmt"
)

// ClaimsOptions configure [RunClaims].
type ClaimsOptions struct {
	// Path is a claims file: {"memories": [...], "questions": [...],
	// "unrelated": [...], "store_pairs": [...]} (see the data README).
	Path string
	// Encoder turns on the semantic channel; nil searches literally only.
	Encoder embed.Encoder
	// Verbose lists the questions whose expected memory did not come
	// first.
	Verbose bool
	// NoReference leaves the reference facts out. By default the vault is
	// made as `init` makes one, with the bundled reference facts in it:
	// the questions search the claims' own namespace, so no reference
	// fact is ever returned, but they are part of the vault every term's
	// self-information is measured over, as in a user's vault.
	NoReference bool
}

// claimsFile is the claims data set.
type claimsFile struct {
	Name     string `json:"name"`
	Memories []struct {
		ID         string   `json:"id"`
		Text       string   `json:"text"`
		Source     string   `json:"source"`
		Kind       string   `json:"kind"`
		Importance *float64 `json:"importance"`
		Tags       []string `json:"tags"`
		Discovered string   `json:"discovered"`
	} `json:"memories"`
	Questions []struct {
		Q      string   `json:"q"`
		Expect []string `json:"expect"`
		Type   string   `json:"type"`
	} `json:"questions"`
	Unrelated  []string `json:"unrelated"`
	StorePairs []struct {
		First  string `json:"first"`
		Second string `json:"second"`
		Kind   string `json:"kind"`
		Expect string `json:"expect"`
	} `json:"store_pairs"`
}

// ClaimsReport is the result of [RunClaims], with the fields and names of
// the black-box tool (tools/claims_eval.py), so the two compare directly.
type ClaimsReport struct {
	Data      string `json:"data"`
	Memories  int    `json:"memories"`
	Questions int    `json:"questions"`
	// Reference is the number of reference facts the vault held beside
	// the memories (0 with NoReference).
	Reference int    `json:"reference_facts"`
	Encoder   string `json:"encoder,omitempty"`
	Default   struct {
		Hit1  float64 `json:"hit@1"`
		Hit   float64 `json:"hit"`
		Empty float64 `json:"empty"`
		Extra float64 `json:"extra_per_q"`
		// Results is the mean number of results per question;
		// ConfidentHit the share of questions whose answer came back
		// labelled strong or likely.
		Results      float64 `json:"results_per_q"`
		ConfidentHit float64 `json:"confident_hit"`
	} `json:"default"`
	Top5 struct {
		Recall5 float64 `json:"recall@5"`
		MRR5    float64 `json:"mrr@5"`
		// Hit1 is the ranking's own hit@1 (top_k 5, first result), what
		// the default search's hit@1 is measured against.
		Hit1 float64 `json:"hit@1"`
	} `json:"top5"`
	UnrelatedQuiet float64 `json:"unrelated_quiet"`
	// Unrelated is what questions no memory answers get: the share with
	// no result at all, the share with no strong or likely result, and
	// the results per question.
	Unrelated struct {
		Quiet       float64 `json:"quiet"`
		NoConfident float64 `json:"no_confident"`
		Results     float64 `json:"results_per_q"`
	} `json:"unrelated"`
	Store struct {
		Correct     string                    `json:"correct"`
		FactsLost   int                       `json:"facts_lost"`
		UpdatesLost int                       `json:"updates_lost"`
		Outcomes    map[string]map[string]int `json:"outcomes"`
	} `json:"store"`
	ByType map[string]ClaimsTypeReport `json:"by_type"`
	Misses []ClaimsMiss                `json:"misses,omitempty"`
}

// ClaimsTypeReport is one question type's share.
type ClaimsTypeReport struct {
	N       int     `json:"n"`
	Hit1    float64 `json:"hit@1"`
	Recall5 float64 `json:"recall@5"`
}

// ClaimsMiss is a question whose expected memory did not come first.
type ClaimsMiss struct {
	Q       string   `json:"q"`
	Expect  []string `json:"expect"`
	Default []string `json:"default"`
	Top5    []string `json:"top5"`
}

// What each expected class of a store pair should get, and which outcomes
// lose information (as tools/claims_eval.py counts them).
var (
	claimsGood = map[string][]string{"distinct": {"stored"}, "duplicate": {"duplicate", "reaffirmed"},
		"opinion_update": {"conflict"}, "opinion_restate": {"reaffirmed", "duplicate"}}
	claimsLoses = map[string][]string{"distinct": {"duplicate", "reaffirmed"}, "opinion_update": {"duplicate", "reaffirmed"}}
)

// RunClaims measures everyday recall and store decisions on a claims file
// through the product's own code: a fresh vault in a temporary directory,
// the memories imported (each tagged cid-<id>), every question searched
// with no top_k (the relevance cut agents get) and with top_k 5, the
// unrelated questions searched, and each store pair stored in a fresh
// namespace. The metrics are those of tools/claims_eval.py.
func RunClaims(opts ClaimsOptions, progress io.Writer) (ClaimsReport, error) {
	var rep ClaimsReport
	raw, err := os.ReadFile(opts.Path)
	if err != nil {
		return rep, fmt.Errorf("bench: claims: %w", err)
	}
	var data claimsFile
	if err := json.Unmarshal(raw, &data); err != nil {
		return rep, fmt.Errorf("bench: claims %s: %w", opts.Path, err)
	}
	if len(data.Questions) == 0 {
		return rep, fmt.Errorf("bench: claims %s: no questions", opts.Path)
	}
	if progress == nil {
		progress = io.Discard
	}
	dir, err := os.MkdirTemp("", "compartment-claims-")
	if err != nil {
		return rep, fmt.Errorf("bench: claims: %w", err)
	}
	defer os.RemoveAll(dir)
	v, err := claimsVault(filepath.Join(dir, "claims.vault"), opts.Encoder)
	if err != nil {
		return rep, err
	}
	defer v.Close()
	const ns = "claims"
	if !opts.NoReference {
		res, _, err := v.LoadBundledReference()
		if err != nil {
			return rep, fmt.Errorf("bench: claims: %w", err)
		}
		rep.Reference = res.Added
		fmt.Fprintf(progress, "claims: %d reference facts loaded\n", res.Added)
	}
	if err := importClaims(v, data, ns); err != nil {
		return rep, err
	}
	fmt.Fprintf(progress, "claims: %d memories imported\n", len(data.Memories))
	rep.Data, rep.Memories, rep.Questions = data.Name, len(data.Memories), len(data.Questions)
	if rep.Data == "" {
		rep.Data = filepath.Base(opts.Path)
	}
	if opts.Encoder != nil {
		rep.Encoder = opts.Encoder.Info().Name
	}
	if err := claimsQuestions(v, data, ns, opts.Verbose, &rep); err != nil {
		return rep, err
	}
	quiet, calm, returned := 0, 0, 0
	for _, q := range data.Unrelated {
		hits, err := v.Search(vault.SearchRequest{Query: q, Namespace: ns})
		if err != nil || len(hits) == 0 {
			quiet++
		}
		if !slices.ContainsFunc(hits, confidentHit) {
			calm++
		}
		returned += len(hits)
	}
	nu := float64(max(1, len(data.Unrelated)))
	rep.UnrelatedQuiet = round4(float64(quiet) / nu)
	rep.Unrelated.Quiet, rep.Unrelated.NoConfident = rep.UnrelatedQuiet, round4(float64(calm)/nu)
	rep.Unrelated.Results = float64(int(float64(returned)/nu*100+0.5)) / 100
	claimsStorePairs(v, data, &rep)
	return rep, nil
}

// claimsVault creates a throw-away vault with a random passphrase and a
// light key derivation (nothing in it outlives the run).
func claimsVault(path string, enc embed.Encoder) (*vault.Vault, error) {
	pass := make([]byte, 32)
	if _, err := rand.Read(pass); err != nil {
		return nil, fmt.Errorf("bench: claims: %w", err)
	}
	v, err := vault.Create(path, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: pass}, Encoder: enc,
		KDF: vaultfmt.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err != nil {
		return nil, fmt.Errorf("bench: claims: %w", err)
	}
	return v, nil
}

// importClaims imports the memories as `compartment import` does.
func importClaims(v *vault.Vault, data claimsFile, ns string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, m := range data.Memories {
		rec := map[string]any{"text": m.Text, "source": cmpOr(m.Source, "from chat"), "namespace": ns,
			"kind": cmpOr(m.Kind, "fact"), "importance": 0.5,
			"tags": append([]string{"cid-" + strings.ToLower(m.ID)}, m.Tags...)}
		if m.Importance != nil {
			rec["importance"] = *m.Importance
		}
		if m.Discovered != "" {
			rec["discovered"] = m.Discovered
		}
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	if _, err := v.Import(&buf, "from chat", nil); err != nil {
		return fmt.Errorf("bench: claims: import: %w", err)
	}
	return nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// claimsQuestions runs the questions, default and top_k 5.
func claimsQuestions(v *vault.Vault, data claimsFile, ns string, verbose bool, rep *ClaimsReport) error {
	type sums struct{ n, hit1, r5 float64 }
	byType := map[string]*sums{}
	var hit1, hit, empty, extra, results, confident, r5, mrr, rankHit1 float64
	for _, q := range data.Questions {
		want := map[string]bool{}
		for _, e := range q.Expect {
			want[strings.ToLower(e)] = true
		}
		def, sure, err := claimsSearch(v, q.Q, ns, 0)
		if err != nil {
			return err
		}
		top, _, err := claimsSearch(v, q.Q, ns, 5)
		if err != nil {
			return err
		}
		first := len(def) > 0 && want[def[0]]
		hit1 += b2f(first)
		hit += b2f(slices.ContainsFunc(def, func(c string) bool { return want[c] }))
		empty += b2f(len(def) == 0)
		results += float64(len(def))
		confident += b2f(slices.ContainsFunc(sure, func(c string) bool { return want[c] }))
		for _, c := range def {
			extra += b2f(!want[c])
		}
		found := slices.ContainsFunc(top[:min(5, len(top))], func(c string) bool { return want[c] })
		r5 += b2f(found)
		rankHit1 += b2f(len(top) > 0 && want[top[0]])
		for i, c := range top[:min(5, len(top))] {
			if want[c] {
				mrr += 1 / float64(i+1)
				break
			}
		}
		s := byType[cmpOr(q.Type, "?")]
		if s == nil {
			s = &sums{}
			byType[cmpOr(q.Type, "?")] = s
		}
		s.n++
		s.hit1 += b2f(first)
		s.r5 += b2f(found)
		if verbose && !first {
			rep.Misses = append(rep.Misses, ClaimsMiss{Q: q.Q, Expect: q.Expect, Default: def[:min(3, len(def))], Top5: top})
		}
	}
	n := float64(len(data.Questions))
	rep.Default.Hit1, rep.Default.Hit, rep.Default.Empty = round4(hit1/n), round4(hit/n), round4(empty/n)
	rep.Default.Extra = float64(int(extra/n*100+0.5)) / 100
	rep.Default.Results, rep.Default.ConfidentHit = float64(int(results/n*100+0.5))/100, round4(confident/n)
	rep.Top5.Recall5, rep.Top5.MRR5, rep.Top5.Hit1 = round4(r5/n), round4(mrr/n), round4(rankHit1/n)
	rep.ByType = map[string]ClaimsTypeReport{}
	for t, s := range byType {
		rep.ByType[t] = ClaimsTypeReport{N: int(s.n), Hit1: round4(s.hit1 / s.n), Recall5: round4(s.r5 / s.n)}
	}
	return nil
}

// claimsSearch returns the cid tags of a search's results, in order ("" for
// a result without one), and those of the results labelled strong or
// likely.
func claimsSearch(v *vault.Vault, q, ns string, topK int) (all, sure []string, err error) {
	hits, err := v.Search(vault.SearchRequest{Query: q, Namespace: ns, TopK: topK})
	if err != nil {
		return nil, nil, fmt.Errorf("bench: claims: search %q: %w", q, err)
	}
	all = make([]string, len(hits))
	for i, h := range hits {
		for _, t := range h.Tags {
			if c, ok := strings.CutPrefix(strings.ToLower(t), "cid-"); ok {
				all[i] = c
			}
		}
		if confidentHit(h) {
			sure = append(sure, all[i])
		}
	}
	return all, sure, nil
}

// confidentHit reports whether a result is labelled strong or likely: one
// the engine vouches for.
func confidentHit(h vault.SearchHit) bool {
	return h.Match == rank.MatchStrong || h.Match == rank.MatchLikely
}

// claimsStorePairs stores each pair in a fresh namespace and classifies
// what the second store did.
func claimsStorePairs(v *vault.Vault, data claimsFile, rep *ClaimsReport) {
	outcomes := map[string]map[string]int{}
	ok, factsLost, updatesLost := 0, 0, 0
	for i, p := range data.StorePairs {
		ns := fmt.Sprintf("pair-%03d", i)
		kind := cmpOr(p.Kind, "fact")
		_, _ = v.Store(vault.StoreRequest{Text: p.First, Source: "from chat", Namespace: ns, Kind: kind})
		res, err := v.Store(vault.StoreRequest{Text: p.Second, Source: "from chat", Namespace: ns, Kind: kind})
		got := classifyStore(res, err)
		if outcomes[p.Expect] == nil {
			outcomes[p.Expect] = map[string]int{}
		}
		outcomes[p.Expect][got]++
		if slices.Contains(claimsGood[p.Expect], got) {
			ok++
		}
		if slices.Contains(claimsLoses[p.Expect], got) {
			switch p.Expect {
			case "distinct":
				factsLost++
			case "opinion_update":
				updatesLost++
			}
		}
	}
	rep.Store.Correct = fmt.Sprintf("%d/%d", ok, len(data.StorePairs))
	rep.Store.FactsLost, rep.Store.UpdatesLost, rep.Store.Outcomes = factsLost, updatesLost, outcomes
}

func classifyStore(res vault.StoreResult, err error) string {
	switch {
	case err != nil:
		return "error"
	case len(res.Conflicts) > 0:
		return "conflict"
	case res.Reaffirmed:
		return "reaffirmed"
	case res.Duplicate:
		return "duplicate"
	case res.Stored:
		return "stored"
	}
	return "other"
}

// WriteJSON prints the report as one JSON object.
func (r ClaimsReport) WriteJSON(w io.Writer) error {
	return json.NewEncoder(w).Encode(r)
}

// WriteText prints the report as a table.
func (r ClaimsReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	channels := "literal channel"
	if r.Encoder != "" {
		channels = "hybrid (" + r.Encoder + ")"
	}
	beside := ""
	if r.Reference > 0 {
		beside = fmt.Sprintf(" (beside %d reference facts)", r.Reference)
	}
	fmt.Fprintf(tw, "claims %s: %d memories%s, %d questions, %s\n\n", r.Data, r.Memories, beside, r.Questions, channels)
	fmt.Fprintf(tw, "default search (no top_k)\thit@1 %.2f\thit %.2f\tempty %.2f\textra %.2f per question\t%.2f results per question\tanswer strong/likely %.2f\n",
		r.Default.Hit1, r.Default.Hit, r.Default.Empty, r.Default.Extra, r.Default.Results, r.Default.ConfidentHit)
	fmt.Fprintf(tw, "top_k 5\trecall@5 %.2f\tMRR %.3f\thit@1 %.2f (the ranking's own)\n", r.Top5.Recall5, r.Top5.MRR5, r.Top5.Hit1)
	fmt.Fprintf(tw, "unrelated questions\tanswered with nothing %.3f\tno strong/likely result %.3f\t%.2f results per question\n",
		r.Unrelated.Quiet, r.Unrelated.NoConfident, r.Unrelated.Results)
	fmt.Fprintf(tw, "store pairs decided correctly\t%s\tfacts lost %d\tupdates lost %d\n", r.Store.Correct, r.Store.FactsLost, r.Store.UpdatesLost)
	for _, exp := range slices.Sorted(maps.Keys(r.Store.Outcomes)) {
		var parts []string
		for _, got := range slices.Sorted(maps.Keys(r.Store.Outcomes[exp])) {
			parts = append(parts, fmt.Sprintf("%s %d", got, r.Store.Outcomes[exp][got]))
		}
		fmt.Fprintf(tw, "  %s\t%s\n", exp, strings.Join(parts, ", "))
	}
	fmt.Fprintln(tw)
	for _, t := range slices.Sorted(maps.Keys(r.ByType)) {
		s := r.ByType[t]
		fmt.Fprintf(tw, "  %s\t%d questions\thit@1 %.2f\trecall@5 %.2f\n", t, s.N, s.Hit1, s.Recall5)
	}
	for _, m := range r.Misses {
		fmt.Fprintf(tw, "  miss\t%q\texpect %v\tdefault %v\ttop5 %v\n", m.Q, m.Expect, m.Default, m.Top5)
	}
	return tw.Flush()
}
