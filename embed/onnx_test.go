//go:build cgo

package embed

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
)

// rawHidden runs the fixture graph directly through onnxruntime_go, with
// no code of this package in between, on one framed, unpadded sequence,
// and returns last_hidden_state as [tokens][dim].
func rawHidden(t *testing.T, ids []int32) [][]float32 {
	t.Helper()
	requireORT(t)
	n := len(ids) + 2
	in := make([]int64, 0, n)
	in = append(in, 101)
	for _, id := range ids {
		in = append(in, int64(id))
	}
	in = append(in, 102)
	mask := make([]int64, n)
	for i := range mask {
		mask[i] = 1
	}
	types := make([]int64, n)
	sess, err := ort.NewDynamicAdvancedSession(filepath.Join(fixtureDir, "tiny-bert.onnx"),
		[]string{"input_ids", "attention_mask", "token_type_ids"}, []string{"last_hidden_state"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Destroy()
	var tensors []ort.Value
	for _, data := range [][]int64{in, mask, types} {
		tt, err := ort.NewTensor(ort.NewShape(1, int64(n)), data)
		if err != nil {
			t.Fatal(err)
		}
		defer tt.Destroy()
		tensors = append(tensors, tt)
	}
	outs := []ort.Value{nil}
	if err := sess.Run(tensors, outs); err != nil {
		t.Fatal(err)
	}
	defer outs[0].Destroy()
	flat := outs[0].(*ort.Tensor[float32]).GetData()
	dim := len(flat) / n
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = append([]float32(nil), flat[i*dim:(i+1)*dim]...)
	}
	return rows
}

// referenceVector pools and normalises raw hidden states the plain way.
func referenceVector(rows [][]float32, pooling string) []float32 {
	out := make([]float64, len(rows[0]))
	if pooling == "cls" {
		for d, x := range rows[0] {
			out[d] = float64(x)
		}
	} else {
		for _, row := range rows {
			for d, x := range row {
				out[d] += float64(x) / float64(len(rows))
			}
		}
	}
	var sum float64
	for _, x := range out {
		sum += x * x
	}
	v := make([]float32, len(out))
	for d, x := range out {
		v[d] = float32(x / math.Sqrt(sum))
	}
	return v
}

func fixtureIDs(t *testing.T, text string) []int32 {
	t.Helper()
	ids, _, err := loadFixtureTokenizer(t).Encode(text)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestONNXPoolingAgainstReference compares the encoder's vectors with CLS
// and mean pooling computed here from the graph's raw output, for texts of
// different lengths embedded in one padded batch (so the attention mask
// and the pooling mask both matter).
func TestONNXPoolingAgainstReference(t *testing.T) {
	texts := []string{
		"short",
		"A somewhat longer sentence about the vault's embedding model and its windows.",
		"",
		"Tea after lunch.",
	}
	for _, pooling := range []string{"cls", "mean"} {
		t.Run(pooling, func(t *testing.T) {
			requireORT(t)
			dir := fixtureVariant(t, func(m *Manifest) { m.Pooling = pooling })
			enc, err := Load(LoadOptions{Path: dir})
			if err != nil {
				t.Fatal(err)
			}
			defer enc.Close()
			docs, err := enc.EmbedDocuments(texts)
			if err != nil {
				t.Fatal(err)
			}
			for i, text := range texts {
				want := referenceVector(rawHidden(t, fixtureIDs(t, text)), pooling)
				got := docs[i].Vectors[0]
				if d := maxAbsDiff(got, want); d > 1e-5 {
					t.Errorf("%q: max |diff| %.2g\n got  %v\n want %v", text, d, got[:4], want[:4])
				}
				if n := norm2(got); math.Abs(n-1) > 1e-5 {
					t.Errorf("%q: norm %v, want 1", text, n)
				}
			}
			// A query is the prefix and the text, read as one sequence.
			q, err := enc.EmbedQuery("where is the staging database?")
			if err != nil {
				t.Fatal(err)
			}
			want := referenceVector(rawHidden(t, fixtureIDs(t, enc.Info().QueryPrefix+"where is the staging database?")), pooling)
			if d := maxAbsDiff(q, want); d > 1e-5 {
				t.Errorf("query: max |diff| %.2g", d)
			}
		})
	}
}

func TestONNXBatchEqualsSingle(t *testing.T) {
	enc := openFixture(t)
	var texts []string
	for i := 0; i < 45; i++ { // more than one batch of 32
		texts = append(texts, fmt.Sprintf("memory %d: %s", i, strings.Repeat("the quick brown fox ", i%7)))
	}
	texts = append(texts, strings.Repeat("a long memory spanning windows ", 200))
	batch, err := enc.EmbedDocuments(texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		single, err := enc.EmbedDocuments([]string{text})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(single[0].Windows, batch[i].Windows) || single[0].Tokens != batch[i].Tokens {
			t.Fatalf("text %d: windows %v/%d alone, %v/%d in a batch", i, single[0].Windows, single[0].Tokens,
				batch[i].Windows, batch[i].Tokens)
		}
		for w := range single[0].Vectors {
			if d := maxAbsDiff(single[0].Vectors[w], batch[i].Vectors[w]); d > 1e-5 {
				t.Errorf("text %d window %d: max |diff| %.2g between batch and single", i, w, d)
			}
		}
	}
}

// TestONNXWindowBoundaries builds texts whose every word is one token, so
// the window of tokens [s, e) is exactly words[s:e]: each window's vector
// must equal the vector of that slice embedded on its own.
func TestONNXWindowBoundaries(t *testing.T) {
	enc := openFixture(t)
	vocab := fixtureVocab(t)
	pool := []string{"alpha", "beta", "gamma", "delta", "river", "stone", "green", "table"}
	for _, w := range pool {
		if _, ok := vocab[w]; !ok {
			t.Fatalf("%q is not one token", w)
		}
	}
	words := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = pool[(i*7+i/3)%len(pool)]
		}
		return out
	}
	for _, n := range []int{1, 447, 448, 449, 832, 833, 1000} {
		ws := words(n)
		docs, err := enc.EmbedDocuments([]string{strings.Join(ws, " ")})
		if err != nil {
			t.Fatal(err)
		}
		d := docs[0]
		if d.Tokens != n || !reflect.DeepEqual(d.Windows, Windows(n)) || len(d.Vectors) != len(d.Windows) {
			t.Fatalf("n=%d: tokens %d windows %v (%d vectors), want windows %v", n, d.Tokens, d.Windows, len(d.Vectors), Windows(n))
		}
		for k, win := range d.Windows {
			if win[1]-win[0] > WindowTokens || k > 0 && win[0] != d.Windows[k-1][0]+WindowStride {
				t.Fatalf("n=%d: window %d = %v", n, k, win)
			}
			alone, err := enc.EmbedDocuments([]string{strings.Join(ws[win[0]:win[1]], " ")})
			if err != nil {
				t.Fatal(err)
			}
			if diff := maxAbsDiff(alone[0].Vectors[0], d.Vectors[k]); diff > 1e-5 {
				t.Errorf("n=%d window %d %v: differs from its words embedded alone by %.2g", n, k, win, diff)
			}
		}
	}
	// Past 64 windows the tail is not embedded.
	n := WindowTokens + MaxWindows*WindowStride + 100
	docs, err := enc.EmbedDocuments([]string{strings.Join(words(n), " ")})
	if err != nil {
		t.Fatal(err)
	}
	if d := docs[0]; d.Tokens != n || len(d.Windows) != MaxWindows || len(d.Vectors) != MaxWindows {
		t.Fatalf("n=%d: tokens %d, %d windows, %d vectors", n, d.Tokens, len(d.Windows), len(d.Vectors))
	}
}

func TestONNXQueryTruncatedToModelLimit(t *testing.T) {
	enc := openFixture(t)
	long := strings.Repeat("river ", 2000)
	q, err := enc.EmbedQuery(long)
	if err != nil {
		t.Fatal(err)
	}
	ids := fixtureIDs(t, enc.Info().QueryPrefix+long)[:enc.Info().MaxTokens-2]
	want := referenceVector(rawHidden(t, ids), "cls")
	if d := maxAbsDiff(q, want); d > 1e-5 {
		t.Errorf("long query: max |diff| %.2g from its first %d tokens", d, len(ids))
	}
}

// TestONNXPin checks the pin is the documented hash and moves with the
// weights, the tokenizer, the pooling and the prefix but not the name.
func TestONNXPin(t *testing.T) {
	m, err := ReadManifest(filepath.Join(fixtureDir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	pin, err := m.Pin()
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("compartment-model-pin v1\nweights %s\ntokenizer %s\npooling cls\nquery_prefix %q\n",
		m.Files[0].SHA256, m.Files[1].SHA256, m.QueryPrefix)
	if want := sha256.Sum256([]byte(text)); pin != want {
		t.Fatalf("pin %x, want sha256 of the documented text %x", pin, want)
	}
	enc := openFixture(t)
	if enc.Info().SHA256 != pin {
		t.Errorf("encoder pin %x, manifest pin %x", enc.Info().SHA256, pin)
	}
	for name, edit := range map[string]func(*Manifest){
		"pooling": func(m *Manifest) { m.Pooling = "mean" },
		"prefix":  func(m *Manifest) { m.QueryPrefix = "" },
		"weights": func(m *Manifest) { m.Files[0].SHA256 = strings.Repeat("0", 64) },
	} {
		c := *m
		c.Files = append([]ManifestItem(nil), m.Files...)
		edit(&c)
		if p, _ := c.Pin(); p == pin {
			t.Errorf("changing %s kept the pin", name)
		}
	}
	renamed := *m
	renamed.Name = "another-name"
	if p, _ := renamed.Pin(); p != pin {
		t.Errorf("renaming changed the pin")
	}
}

// TestONNXPinRefusal: a vault pinned to one model refuses another, with a
// message that names both and the way out.
func TestONNXPinRefusal(t *testing.T) {
	enc := openFixture(t)
	meanDir := fixtureVariant(t, func(m *Manifest) { m.Pooling = "mean"; m.Name = "tiny-bert-mean" })
	other, err := Load(LoadOptions{Path: meanDir})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := CheckPin(enc.Info().Name, enc.Info().SHA256, enc.Info()); err != nil {
		t.Fatalf("same model refused: %v", err)
	}
	err = CheckPin(enc.Info().Name, enc.Info().SHA256, other.Info())
	if !errors.Is(err, ErrPinMismatch) {
		t.Fatalf("other model accepted: %v", err)
	}
	for _, want := range []string{"compartment reindex --re-embed", "tiny-bert-random", "tiny-bert-mean",
		FormatPin(enc.Info().SHA256)[:16], FormatPin(other.Info().SHA256)[:16]} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %v", want, err)
		}
	}
}

// TestONNXTamperedFilesRefused: the pin describes the bytes that run, so
// a changed weight or tokenizer file refuses to load.
func TestONNXTamperedFilesRefused(t *testing.T) {
	requireORT(t)
	for _, file := range []string{"tiny-bert.onnx", "tokenizer.json"} {
		dir := fixtureVariant(t, func(*Manifest) {})
		path := filepath.Join(dir, file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 0x01
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if enc, err := Load(LoadOptions{Path: dir}); !errors.Is(err, ErrManifest) {
			if enc != nil {
				enc.Close()
			}
			t.Errorf("%s with one bit flipped: err = %v, want ErrManifest", file, err)
		}
	}
}

func TestONNXMissingRuntimeMessage(t *testing.T) {
	t.Setenv(EnvORTLib, filepath.Join(t.TempDir(), "libonnxruntime.so.1.24.1"))
	_, err := findORTLib("")
	if !errors.Is(err, ErrNoRuntime) {
		t.Fatalf("err = %v, want ErrNoRuntime", err)
	}
	for _, want := range []string{"make setup", EnvORTLib, ORTVersion} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %v", want, err)
		}
	}
	// The setting is used when the environment says nothing.
	t.Setenv(EnvORTLib, "")
	if got := ortLibCandidates("/opt/ort/lib.so"); !reflect.DeepEqual(got, []string{"/opt/ort/lib.so"}) {
		t.Errorf("candidates with a setting = %v", got)
	}
}

func TestONNXLoadByNameAndDefault(t *testing.T) {
	requireORT(t)
	models := t.TempDir()
	if _, _, err := Install("tiny", InstallOptions{ModelsDir: models, From: fixtureDir}); err != nil {
		t.Fatal(err)
	}
	enc, err := Load(LoadOptions{Name: "tiny", ModelsDir: models})
	if err != nil {
		t.Fatal(err)
	}
	pin := enc.Info().SHA256
	enc.Close()
	// No default chosen: the static model.
	ref, _, err := resolveModel(LoadOptions{ModelsDir: models})
	if err != nil || ref.Kind != refStatic {
		t.Fatalf("default without a choice = %+v, %v; want the static model", ref, err)
	}
	if err := SetDefaultModel(models, "tiny"); err != nil {
		t.Fatal(err)
	}
	enc, err = Load(LoadOptions{ModelsDir: models})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	if enc.Info().SHA256 != pin || enc.Info().Name != "tiny" {
		t.Errorf("default model = %s %x, want tiny %x", enc.Info().Name, enc.Info().SHA256, pin)
	}
	if err := SetDefaultModel(models, "not-installed"); !errors.Is(err, ErrModelNotFound) {
		t.Errorf("default to a missing model: %v", err)
	}
	_, err = Load(LoadOptions{Name: DefaultDownload, ModelsDir: models})
	if !errors.Is(err, ErrModelNotFound) || !strings.Contains(err.Error(), "setup download-model") {
		t.Errorf("missing catalogue model: %v", err)
	}
}
