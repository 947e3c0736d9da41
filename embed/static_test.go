package embed

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func openBundled(t testing.TB) Encoder {
	t.Helper()
	enc, err := OpenStatic()
	if err != nil {
		t.Fatalf("OpenStatic: %v", err)
	}
	t.Cleanup(func() { enc.Close() })
	return enc
}

func TestStaticModelSumMatchesRecorded(t *testing.T) {
	sum := sha256.Sum256([]byte(staticModelFile))
	if got, want := hex.EncodeToString(sum[:]), strings.TrimSpace(staticModelSum); got != want {
		t.Fatalf("embedded model SHA-256 %s, recorded %s: run `make model` and commit both files", got, want)
	}
	if info := openBundled(t).Info(); info.SHA256 != sum {
		t.Fatalf("Info().SHA256 = %x, want %x", info.SHA256, sum)
	}
}

func TestStaticModelLimits(t *testing.T) {
	if n := len(staticModelFile); n > 16<<20 {
		t.Fatalf("model file is %d bytes, over the 16 MiB budget", n)
	}
	info := openBundled(t).Info()
	want := ModelInfo{Name: StaticModelName, SHA256: info.SHA256, Dim: info.Dim, MaxTokens: WindowTokens, Pooling: "sif", Calibration: info.Calibration}
	if info != want {
		t.Fatalf("Info() = %+v, want %+v", info, want)
	}
	if err := info.Calibration.Validate(); err != nil {
		t.Fatalf("bundled model: %v", err)
	}
	if info.Dim < 64 || info.Dim > 256 {
		t.Fatalf("dim %d outside 64..256", info.Dim)
	}
}

func TestStaticWords(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Hello, World!", []string{"hello", "world"}},
		{"Max's CRM isn't in Postgres-15", []string{"max", "crm", "isnt", "in", "postgres", "15"}},
		{"it’s Zoë's café", []string{"it", "zoë", "café"}},
		{"rock 'n' roll", []string{"rock", "n", "roll"}},
		{"end'", []string{"end"}},
		{"ÉCOLE über", []string{"école", "über"}},
		{strings.Repeat("a", 60), []string{strings.Repeat("a", maxStaticWordBytes)}},
	}
	for _, c := range cases {
		if got := StaticWords(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("StaticWords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestStaticNgramBuckets(t *testing.T) {
	var got []int
	StaticNgramBuckets("ab", 3, 4, 1000, func(b int) { got = append(got, b) })
	// "<ab>" has 3-grams "<ab", "ab>" and the 4-gram "<ab>".
	want := []int{int(fnv1a("<ab") % 1000), int(fnv1a("ab>") % 1000), int(fnv1a("<ab>") % 1000)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("buckets %v, want %v", got, want)
	}
	// Known answer: FNV-1a("a") = 0xe40c292c.
	if h := fnv1a("a"); h != 0xe40c292c {
		t.Fatalf("fnv1a(a) = %#x", h)
	}
}

func isUnit(v []float32) bool {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	return math.Abs(ss-1) < 1e-4
}

func TestStaticQueryIsUnitAndDeterministic(t *testing.T) {
	enc := openBundled(t)
	for _, q := range []string{"what did Max decide about the CRM", "zzqxj unknownword", "a"} {
		v1, err := enc.EmbedQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		v2, _ := enc.EmbedQuery(q)
		if len(v1) != enc.Info().Dim || !isUnit(v1) || !reflect.DeepEqual(v1, v2) {
			t.Fatalf("query %q: len %d, unit %v, repeatable %v", q, len(v1), isUnit(v1), reflect.DeepEqual(v1, v2))
		}
	}
	v, _ := enc.EmbedQuery("")
	for _, x := range v {
		if x != 0 {
			t.Fatal("empty query should give the zero vector")
		}
	}
}

func TestStaticWindowsOnLongText(t *testing.T) {
	enc := openBundled(t)
	var b strings.Builder
	topics := []string{"the dog chased a ball in the park", "we cooked pasta with tomato sauce", "the server crashed after the database upgrade"}
	for i := 0; i < 150; i++ { // 150 sentences of 7–8 words ≈ 1,100 words
		b.WriteString(topics[i*len(topics)/150])
		b.WriteString(". ")
	}
	text := b.String()
	docs, err := enc.EmbedDocuments([]string{text, "one short memory"})
	if err != nil {
		t.Fatal(err)
	}
	long, short := docs[0], docs[1]
	n := len(StaticWords(text))
	if long.Tokens != n || !reflect.DeepEqual(long.Windows, Windows(n)) || len(long.Vectors) != len(long.Windows) {
		t.Fatalf("long text: tokens %d (want %d), windows %v (want %v), vectors %d", long.Tokens, n, long.Windows, Windows(n), len(long.Vectors))
	}
	if len(long.Windows) < 3 {
		t.Fatalf("expected at least 3 windows for %d tokens", n)
	}
	for i, v := range long.Vectors {
		if !isUnit(v) {
			t.Fatalf("window %d not unit length", i)
		}
	}
	// Each window is its own text: the first is about the dog, the last about the server.
	q, _ := enc.EmbedQuery("database server crash")
	first, last := cosine(q, long.Vectors[0]), cosine(q, long.Vectors[len(long.Vectors)-1])
	if last <= first {
		t.Fatalf("server query: last window %.3f should beat first %.3f", last, first)
	}
	if short.Tokens != 3 || len(short.Vectors) != 1 || short.Windows[0] != [2]int{0, 3} {
		t.Fatalf("short memory: %+v", short)
	}
	// A query is the first window of the same text.
	qv, _ := enc.EmbedQuery(text)
	if !reflect.DeepEqual(qv, long.Vectors[0]) {
		t.Fatal("EmbedQuery of a long text should equal its first window's vector")
	}
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func tinyModel() *StaticModelData {
	return &StaticModelData{
		Dim: 2, MinN: 3, MaxN: 3, OOVWeight: 0.5,
		Words:       []string{"cat", "dog"},
		WordCoef:    []float32{1, 0.5},
		WordVecs:    []int8{127, 0, 0, -127},
		BucketScale: []float32{1, 1},
		BucketVecs:  []int8{3, 4, 3, 4},
	}
}

func TestStaticFormatRoundTrip(t *testing.T) {
	b, err := tinyModel().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	enc, err := OpenStaticBytes(b, "tiny", sha256.Sum256(b), SpecCalibration)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text string
		want []float32
	}{
		{"cat", []float32{1, 0}},
		{"dog", []float32{0, -1}},
		{"cat dog", []float32{float32(1 / math.Sqrt(1.25)), float32(-0.5 / math.Sqrt(1.25))}},
		{"emu", []float32{0.6, 0.8}}, // unknown: mean of its bucket rows (3,4)
	} {
		v, _ := enc.EmbedQuery(c.text)
		for i := range v {
			if math.Abs(float64(v[i]-c.want[i])) > 1e-6 {
				t.Fatalf("%q → %v, want %v", c.text, v, c.want)
			}
		}
	}
}

func TestStaticFormatRejectsDamage(t *testing.T) {
	good, _ := tinyModel().MarshalBinary()
	mutate := map[string]func([]byte) []byte{
		"magic":     func(b []byte) []byte { b[0] = 'X'; return b },
		"version":   func(b []byte) []byte { b[8] = 3; return b },
		"as v2":     func(b []byte) []byte { b[8] = 2; return b }, // no identifier weight field
		"truncated": func(b []byte) []byte { return b[:len(b)-1] },
		"extended":  func(b []byte) []byte { return append(b, 0) },
		"dim zero":  func(b []byte) []byte { b[12] = 0; return b },
		"order":     func(b []byte) []byte { b[37], b[41] = 'd', 'c'; return b }, // swaps "cat" and "dog" initials
		"short":     func(b []byte) []byte { return b[:10] },
	}
	for name, m := range mutate {
		b := m(append([]byte(nil), good...))
		if _, err := OpenStaticBytes(b, "x", [32]byte{}, Calibration{}); !errors.Is(err, ErrBadStaticModel) {
			t.Errorf("%s: err = %v, want ErrBadStaticModel", name, err)
		}
	}
	bad := tinyModel()
	bad.Words = []string{"dog", "cat"}
	if _, err := bad.MarshalBinary(); err == nil {
		t.Error("MarshalBinary accepted unsorted words")
	}
}

// TestStaticIdentifierUnits checks the version 2 file: a number outside the
// vocabulary has a unit of its own, the same for the same string and
// near-orthogonal to another number's, while a version 1 file keeps
// treating it as character n-grams.
func TestStaticIdentifierUnits(t *testing.T) {
	m := tinyModel()
	m.Dim = 64
	m.WordCoef = []float32{1.0 / 127, 1.0 / 127} // unit rows
	m.WordVecs = make([]int8, 2*64)
	m.WordVecs[0], m.WordVecs[64+1] = 127, 127
	m.BucketVecs = make([]int8, 2*64)
	m.BucketVecs[5], m.BucketVecs[64+5] = 100, 100
	v1, _ := m.MarshalBinary()
	m.IDWeight = 1
	v2, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if v1[8] != 1 || v2[8] != 2 || len(v2) != len(v1)+4 {
		t.Fatalf("versions %d/%d, lengths %d/%d", v1[8], v2[8], len(v1), len(v2))
	}
	back, err := ParseStaticModel(v2)
	if err != nil || back.IDWeight != 1 {
		t.Fatalf("ParseStaticModel: %v, IDWeight %v", err, back.IDWeight)
	}
	e1, _ := OpenStaticBytes(v1, "v1", sha256.Sum256(v1), SpecCalibration)
	e2, _ := OpenStaticBytes(v2, "v2", sha256.Sum256(v2), SpecCalibration)
	if c := sim(t, e1, "port 5432", "port 5433"); c < 0.999 {
		t.Fatalf("version 1: port 5432 vs 5433 cos %.3f, want the n-gram behaviour (≈ 1)", c)
	}
	if c := sim(t, e2, "5432", "5433"); math.Abs(c) > 0.5 {
		t.Fatalf("version 2: 5432 vs 5433 cos %.3f, want near-orthogonal units", c)
	}
	if c := sim(t, e2, "cat 5432", "cat 5433"); c > 0.8 {
		t.Fatalf("version 2: cat 5432 vs cat 5433 cos %.3f, the numbers should count", c)
	}
	if c := sim(t, e2, "cat a1b2", "cat a1b2"); math.Abs(c-1) > 1e-5 {
		t.Fatalf("version 2: the same identifier gives cos %.6f", c)
	}
	if v, _ := e2.EmbedQuery("4512"); !isUnit(v) {
		t.Fatal("version 2: an identifier alone is not a unit vector")
	}
	m.IDWeight = -1
	if _, err := m.MarshalBinary(); err == nil {
		t.Fatal("MarshalBinary accepted a negative identifier weight")
	}
	bad := append([]byte(nil), v2...)
	copy(bad[36:40], []byte{0, 0, 0, 0})
	if _, err := OpenStaticBytes(bad, "x", [32]byte{}, Calibration{}); !errors.Is(err, ErrBadStaticModel) {
		t.Fatalf("version 2 with a zero identifier weight: err = %v", err)
	}
}

// TestStaticV2Bundled checks the retrieval-trained model: its recorded
// SHA-256, its name and calibration, that "static-v2" selects it while
// "static" and the v1 name keep selecting v1 (a vault pinned to v1 keeps
// working), and that both bundled files fit the 32 MiB budget together.
func TestStaticV2Bundled(t *testing.T) {
	sum := sha256.Sum256([]byte(staticV2ModelFile))
	if got, want := hex.EncodeToString(sum[:]), strings.TrimSpace(staticV2ModelSum); got != want {
		t.Fatalf("embedded v2 model SHA-256 %s, recorded %s: run `make model` and commit both files", got, want)
	}
	if n := len(staticModelFile) + len(staticV2ModelFile); n > 32<<20 {
		t.Fatalf("the bundled models are %d bytes, over the 32 MiB budget", n)
	}
	for name, want := range map[string]string{
		StaticV2Model: StaticV2ModelName, StaticV2ModelName: StaticV2ModelName,
		StaticModel: StaticModelName, StaticModelName: StaticModelName, "": StaticModelName, "static-v1": StaticModelName,
	} {
		enc, err := Load(LoadOptions{Name: name, ModelsDir: t.TempDir()})
		if err != nil {
			t.Fatalf("Load(%q): %v", name, err)
		}
		info := enc.Info()
		if info.Name != want {
			t.Fatalf("Load(%q) gave %s, want %s", name, info.Name, want)
		}
		if err := info.Calibration.Validate(); err != nil {
			t.Fatalf("%s: %v", want, err)
		}
		if want == StaticV2ModelName && info.SHA256 != sum {
			t.Fatalf("v2 Info().SHA256 = %x, want %x", info.SHA256, sum)
		}
	}
}
