package bench

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/search"
	"github.com/compartment/compartment/internal/vault"
)

// LMEVariants are the names `--longmemeval` accepts instead of a path.
var LMEVariants = []string{"s", "m", "oracle"}

// LMEOptions configure [RunLongMemEval].
type LMEOptions struct {
	// Path is a LongMemEval file (the official JSON array, optionally
	// gzip-compressed) or a variant name (s, m, oracle) read from DataDir.
	Path string
	// DataDir holds the variants as <name>.json; "" means
	// ~/.compartment/benchmarks/longmemeval.
	DataDir string
	// Limit evaluates at most this many questions (abstention questions
	// are skipped and not counted); 0 means all.
	Limit int
	// Encoder turns on the semantic channel; nil searches literally only.
	Encoder embed.Encoder
}

// LMEInstance is one LongMemEval question with its haystack, as in the
// official files (the fields this package and its tools read).
type LMEInstance struct {
	QuestionID   string      `json:"question_id"`
	QuestionType string      `json:"question_type"`
	Question     string      `json:"question"`
	SessionIDs   []string    `json:"haystack_session_ids"`
	Sessions     [][]LMETurn `json:"haystack_sessions"`
}

// LMETurn is one turn of a haystack session.
type LMETurn struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	HasAnswer bool   `json:"has_answer"`
}

// RunLongMemEval runs the official LongMemEval retrieval evaluation
// through the product's search engine: for every question a fresh
// in-memory [search.Engine] over the haystack's user turns, indexed once
// with whole sessions as documents (session level) and once with single
// turns (turn level), queried with the question. Progress lines go to
// progress (nil: none).
func RunLongMemEval(opts LMEOptions, progress io.Writer) (LMEReport, error) {
	path, err := resolveLMEPath(opts)
	if err != nil {
		return LMEReport{}, err
	}
	if progress == nil {
		progress = io.Discard
	}
	if opts.Encoder != nil {
		if err := embed.CheckCalibrated(opts.Encoder.Info()); err != nil {
			return LMEReport{}, err
		}
	}
	acc := newLMEAccumulator(opts.Encoder)
	err = ReadLongMemEval(path, func(inst LMEInstance) (bool, error) {
		if strings.Contains(inst.QuestionID, "_abs") {
			acc.skipped++
			return true, nil
		}
		if err := acc.evaluate(inst); err != nil {
			return false, fmt.Errorf("bench: longmemeval question %s: %w", inst.QuestionID, err)
		}
		if acc.n%10 == 0 {
			fmt.Fprintf(progress, "longmemeval: %d questions, session recall_any@5 %.3f so far\n",
				acc.n, acc.all.session.mean(recallAny, 5))
		}
		return opts.Limit <= 0 || acc.n < opts.Limit, nil
	})
	if err != nil {
		return LMEReport{}, err
	}
	if acc.n == 0 {
		return LMEReport{}, fmt.Errorf("bench: longmemeval %s: no questions to evaluate", path)
	}
	return acc.report(), nil
}

// resolveLMEPath turns a variant name into its file under DataDir.
func resolveLMEPath(opts LMEOptions) (string, error) {
	if opts.Path == "" {
		return "", errors.New("bench: longmemeval: no file or variant given")
	}
	if !slices.Contains(LMEVariants, opts.Path) {
		return opts.Path, nil
	}
	dir := opts.DataDir
	if dir == "" {
		var err error
		if dir, err = DefaultLMEDir(); err != nil {
			return "", err
		}
	}
	for _, name := range []string{opts.Path + ".json", opts.Path + ".json.gz", "longmemeval_" + opts.Path + ".json"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("bench: longmemeval variant %q not found in %s (run `compartment setup download-longmemeval`)", opts.Path, dir)
}

// ReadLongMemEval streams the instances of a LongMemEval file (a JSON
// array, gzip-compressed or not) to fn, one at a time, so the 2.7 GB _m
// variant never sits in memory whole. fn returns false to stop. The
// harness and the bench tools (fts5, lmeval) all read the files with it.
func ReadLongMemEval(path string, fn func(LMEInstance) (bool, error)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("bench: longmemeval: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("bench: longmemeval %s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	dec := json.NewDecoder(r)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return fmt.Errorf("bench: longmemeval %s: not a JSON array of questions", path)
	}
	for dec.More() {
		var inst LMEInstance
		if err := dec.Decode(&inst); err != nil {
			return fmt.Errorf("bench: longmemeval %s: %w", path, err)
		}
		if len(inst.SessionIDs) != len(inst.Sessions) {
			return fmt.Errorf("bench: longmemeval %s: question %s has %d session ids for %d sessions",
				path, inst.QuestionID, len(inst.SessionIDs), len(inst.Sessions))
		}
		more, err := fn(inst)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// lmeCorpus is one granularity's documents for a question: texts, the
// official corpus ids (an answer session or turn without has_answer has
// "answer" replaced by "noans") and the write order.
type lmeCorpus struct {
	texts []string
	ids   []string
	seqs  []uint64
}

// gold is the official set of correct documents: ids containing "answer".
func (c lmeCorpus) gold() map[string]bool {
	g := map[string]bool{}
	for _, id := range c.ids {
		if strings.Contains(id, "answer") {
			g[id] = true
		}
	}
	return g
}

// peerGold is the peer convention's gold: every answer session (or every
// user turn of one), whether or not the official run renamed it "noans".
func (c lmeCorpus) peerGold() map[string]bool {
	g := map[string]bool{}
	for _, id := range c.ids {
		if strings.Contains(id, "answer") || strings.Contains(id, "noans") {
			g[id] = true
		}
	}
	return g
}

// sessionCorpus: one document per session, its user turns joined by a
// space, as the official session granularity does.
func sessionCorpus(inst LMEInstance) lmeCorpus {
	var c lmeCorpus
	for i, sess := range inst.Sessions {
		var user []string
		hasAnswer := false
		for _, t := range sess {
			if t.Role == "user" {
				user = append(user, t.Content)
				hasAnswer = hasAnswer || t.HasAnswer
			}
		}
		id := inst.SessionIDs[i]
		if strings.Contains(id, "answer") && !hasAnswer {
			id = strings.ReplaceAll(id, "answer", "noans")
		}
		c.texts = append(c.texts, strings.Join(user, " "))
		c.ids = append(c.ids, id)
		c.seqs = append(c.seqs, uint64(i))
	}
	return c
}

// turnCorpus: one document per user turn, id "<session>_<turn index+1>"
// counting every turn, as the official turn granularity does.
func turnCorpus(inst LMEInstance) lmeCorpus {
	var c lmeCorpus
	for i, sess := range inst.Sessions {
		sid := inst.SessionIDs[i]
		for j, t := range sess {
			if t.Role != "user" {
				continue
			}
			id := fmt.Sprintf("%s_%d", sid, j+1)
			if strings.Contains(sid, "answer") && !t.HasAnswer {
				id = strings.ReplaceAll(id, "answer", "noans")
			}
			c.texts = append(c.texts, t.Content)
			c.ids = append(c.ids, id)
			c.seqs = append(c.seqs, uint64(i)<<16|uint64(j))
		}
	}
	return c
}

// rankCorpus indexes a corpus in a fresh engine, searches it with the
// question and returns the ranking over every document: the engine's
// results first, then the documents it did not return, in corpus order
// (the official evaluation ranks the whole corpus).
func rankCorpus(c lmeCorpus, question string, enc embed.Encoder, qvec []float32) ([]int, time.Duration, error) {
	eng, err := indexCorpus(c, enc)
	if err != nil {
		return nil, 0, err
	}
	return rankWith(eng, len(c.texts), question, qvec)
}

// indexCorpus puts a corpus in a fresh in-memory engine, one document per
// text, every one at the default importance.
func indexCorpus(c lmeCorpus, enc embed.Encoder) (*search.Engine, error) {
	dim := 0
	var docs []embed.Document
	if enc != nil {
		dim = enc.Info().Dim
		var err error
		if docs, err = enc.EmbedDocuments(c.texts); err != nil {
			return nil, fmt.Errorf("embed corpus: %w", err)
		}
	}
	var opts search.Options
	if enc != nil {
		opts.Calibration = vault.RankCalibration(enc.Info().Calibration)
		opts.Reads = embed.ReadsOf(enc)
	}
	eng := search.NewWith(dim, opts)
	for i, text := range c.texts {
		var windows [][]float32
		if docs != nil {
			windows = docs[i].Vectors
		}
		meta := search.DocMeta{Namespace: "longmemeval", Seq: c.seqs[i], Importance: 0.5}
		if err := eng.Add(uint32(i), text, windows, meta); err != nil {
			return nil, err
		}
	}
	return eng, nil
}

// rankWith searches an indexed corpus of n documents and returns the
// ranking over all of them (see rankCorpus) and the query's latency.
func rankWith(eng *search.Engine, n int, question string, qvec []float32) ([]int, time.Duration, error) {
	start := time.Now()
	res, err := eng.Search(search.Query{Text: question, Vector: qvec, TopK: n})
	took := time.Since(start)
	if err != nil {
		return nil, 0, err
	}
	ranking := make([]int, 0, n)
	seen := make([]bool, n)
	for _, r := range res {
		if r.Score == 0 && r.Unaged == 0 {
			break // top_k filled up with records that matched nothing
		}
		ranking = append(ranking, int(r.Doc))
		seen[r.Doc] = true
	}
	for i := range n {
		if !seen[i] {
			ranking = append(ranking, i)
		}
	}
	return ranking, took, nil
}
