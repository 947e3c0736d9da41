package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/compartment/compartment/bench"
	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/internal/render"
)

// BenchCmd runs the benchmarks.
type BenchCmd struct {
	Vectors     bool   `help:"Kernels, exact search and HNSW on synthetic 384-dim vectors."`
	Million     bool   `help:"With --vectors: also HNSW at 1,000,000 vectors (about 2 GB, minutes)."`
	Longmemeval string `help:"Retrieval on LongMemEval: a file (JSON, optionally .gz) or a variant (s, m, oracle)." placeholder:"PATH|VARIANT"`
	Limit       int    `help:"With --longmemeval: at most this many questions."`
	Literal     bool   `help:"With --longmemeval or --claims: the literal channel only (no embedding model)."`
	Model       string `help:"With --longmemeval or --claims: the embedding model (default: the vault's default model)." placeholder:"NAME|PATH"`
	Claims      string `help:"Everyday recall and store decisions on a claims file (memories, questions, store pairs; see the README), through the product's own search and store in a throw-away vault." placeholder:"FILE"`
	Verbose     bool   `help:"With --claims: list the questions whose memory did not come first."`
	NoReference bool   `help:"With --claims: leave the bundled reference facts out of the throw-away vault (by default it is made as init makes one, with them)." name:"no-reference"`
	Records     int    `help:"Without a flag: memories in the latency table's vault." default:"20000"`
	VaultCache  string `help:"Latency table: keep the generated vault in this directory and reuse it on the next run with the same --records and model (default: the user cache directory from 100,000 records up; none: never keep it)." name:"vault-cache" placeholder:"DIR|none"`
	Rebuild     bool   `help:"Latency table: build the kept vault again."`
	Searches    int    `help:"Latency table: timed searches." hidden:""`
	Stores      int    `help:"Latency table: timed stores." hidden:""`
	VectorN     int    `help:"Latency table: vectors in the exact and HNSW rows." hidden:"" name:"vector-n"`
	JSON        bool   `help:"Print the report as JSON." name:"json"`
}

func (c *BenchCmd) Run(app *App) error {
	var progress io.Writer = app.Stderr
	switch {
	case c.Vectors:
		rep, err := bench.RunVectors(bench.VectorOptions{Million: c.Million}, progress)
		if err != nil {
			return err
		}
		if c.JSON {
			return render.JSON(app.Stdout, rep)
		}
		return rep.WriteText(app.Stdout)
	case c.Longmemeval != "", c.Claims != "":
		enc, err := c.encoder()
		if err != nil {
			return err
		}
		if enc != nil {
			defer enc.Close()
		}
		var rep interface {
			WriteJSON(io.Writer) error
			WriteText(io.Writer) error
		}
		if c.Longmemeval != "" {
			rep, err = bench.RunLongMemEval(bench.LMEOptions{Path: c.Longmemeval, Limit: c.Limit, Encoder: enc}, progress)
		} else {
			rep, err = bench.RunClaims(bench.ClaimsOptions{Path: c.Claims, Encoder: enc, Verbose: c.Verbose, NoReference: c.NoReference}, progress)
		}
		if err != nil {
			return err
		}
		if c.JSON {
			return rep.WriteJSON(app.Stdout)
		}
		return rep.WriteText(app.Stdout)
	}
	return c.latency(app)
}

// encoder opens the embedding model a retrieval benchmark runs with; nil
// with --literal.
func (c *BenchCmd) encoder() (embed.Encoder, error) {
	if c.Literal {
		return nil, nil
	}
	return openEncoder(c.Model)
}

// latency runs the spec's latency table (no flag given).
func (c *BenchCmd) latency(app *App) error {
	if c.Million || c.Limit != 0 || c.Literal {
		return errors.New("--million goes with --vectors, and --limit goes with --longmemeval, --literal with --longmemeval or --claims")
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench: find this program: %w", err)
	}
	cache, err := bench.CacheDirFor(c.VaultCache, c.Records, c.Rebuild)
	if err != nil {
		return err
	}
	bar := render.NewProgress(app.Stderr, "", 0)
	rep, err := bench.RunLatency(bench.LatencyOptions{
		Records: c.Records, Searches: c.Searches, Stores: c.Stores, VectorN: c.VectorN,
		Exe: exe, Model: c.Model, Log: app.Stderr, CacheDir: cache, Rebuild: c.Rebuild,
		Progress: bar.Stage,
	})
	bar.Done()
	if err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, rep)
	}
	return rep.WriteText(app.Stdout)
}
