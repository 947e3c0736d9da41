package embed

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// fixtureDir holds the committed tiny BERT, its tokenizer and manifest.
const fixtureDir = "testdata/onnx"

var ortForTests struct {
	once sync.Once
	path string
}

// requireORT points the package at the ONNX Runtime library `make setup`
// installs and skips, loudly, only when it is genuinely absent.
func requireORT(t testing.TB) {
	t.Helper()
	ortForTests.once.Do(func() {
		if p := os.Getenv(EnvORTLib); p != "" {
			ortForTests.path = p
			return
		}
		for _, dir := range ortSearchDirs() {
			p := filepath.Join(dir, ortLibName)
			if _, err := os.Stat(p); err == nil {
				ortForTests.path = p
				os.Setenv(EnvORTLib, p) // inherited by daemon subprocesses too
				return
			}
		}
	})
	if ortForTests.path == "" {
		msg := "SKIPPING ONNX TEST: ONNX Runtime " + ORTVersion + " is not installed; run `make setup` " +
			"(or set " + EnvORTLib + ")"
		fmt.Fprintln(os.Stderr, "!!! "+msg)
		t.Skip(msg)
	}
}

// ortSearchDirs are the checkout's .cache/lib (found from the working
// directory up to go.mod) and ~/.compartment/lib.
func ortSearchDirs() []string {
	var dirs []string
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				dirs = append(dirs, filepath.Join(d, ".cache", "lib"))
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".compartment", "lib"))
	}
	return dirs
}

// openFixture loads the tiny BERT in this process.
func openFixture(t testing.TB) Encoder {
	t.Helper()
	requireORT(t)
	enc, err := Load(LoadOptions{Path: fixtureDir})
	if err != nil {
		t.Fatalf("load fixture: %v", err)
	}
	t.Cleanup(func() { enc.Close() })
	return enc
}

// fixtureVariant copies the fixture into a temporary model directory with
// its manifest changed by edit, e.g. to mean pooling.
func fixtureVariant(t testing.TB, edit func(*Manifest)) string {
	t.Helper()
	m, err := ReadManifest(filepath.Join(fixtureDir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range m.Files {
		copyFile(t, filepath.Join(fixtureDir, f.Path), filepath.Join(dir, f.Path))
	}
	edit(m)
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

var fixtureVocabCache struct {
	once  sync.Once
	vocab map[string]int32
	err   error
}

// fixtureVocab reads the fixture tokenizer's vocabulary straight from the
// JSON, independently of the tokenizer under test.
func fixtureVocab(t testing.TB) map[string]int32 {
	t.Helper()
	c := &fixtureVocabCache
	c.once.Do(func() {
		data, err := os.ReadFile(filepath.Join(fixtureDir, "tokenizer.json"))
		if err != nil {
			c.err = err
			return
		}
		var f struct {
			Model struct {
				Vocab map[string]int32 `json:"vocab"`
			} `json:"model"`
		}
		c.err = json.Unmarshal(data, &f)
		c.vocab = f.Model.Vocab
	})
	if c.err != nil {
		t.Fatal(c.err)
	}
	return c.vocab
}

// maxAbsDiff compares two vectors; a length mismatch is infinitely far.
func maxAbsDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var worst float64
	for i := range a {
		worst = math.Max(worst, math.Abs(float64(a[i])-float64(b[i])))
	}
	return worst
}

func norm2(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}
