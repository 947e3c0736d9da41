package lexicon

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestSame(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"flights", "fly", true},
		{"flight", "flew", true},
		{"backups", "backing up", true},
		{"backup", "back up", true},
		{"setups", "setting up", true},
		{"films", "movies", true},
		{"Winter", "wintertime", true},
		{"commuting", "commute", true},
		// alternatives, unrelated words, one word with itself
		{"tea", "coffee", false},
		{"morning", "evening", false},
		{"trains", "flights", false},
		{"backups", "backing", false},
		{"fly", "fly", false},
		{"runner", "run", false},
		{"", "fly", false},
		{"backing up now", "backup", false},
	} {
		if got := Same(c.a, c.b); got != c.want {
			t.Errorf("Same(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := Same(c.b, c.a); got != c.want {
			t.Errorf("Same(%q, %q) = %v, want %v (not symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func TestKind(t *testing.T) {
	for _, c := range []struct {
		a, b, kind string
	}{
		{"tea", "coffee", "beverage"},
		{"coffee", "teas", "beverage"},
		{"autumn", "spring", "season"},
		{"winter", "wintertime", ""}, // one synset: the same, not two kinds
		{"tea", "tea", ""},
		{"tea", "sofa", ""},
		{"zed", "helix", ""},
		{"flight", "fly", ""},
	} {
		got, ok := Kind(c.a, c.b)
		if got != c.kind || ok != (c.kind != "") {
			t.Errorf("Kind(%q, %q) = %q, %v, want %q", c.a, c.b, got, ok, c.kind)
		}
	}
}

func TestRelated(t *testing.T) {
	for _, c := range []struct {
		word string
		has  []string
		not  []string
	}{
		{"teaches", []string{"teacher"}, []string{"teach"}},
		{"invitations", []string{"invite"}, []string{"invitation"}},
		{"Employee", []string{"employ"}, []string{"employer"}}, // one hop only
		{"flights", nil, []string{"fly"}},                      // the same word (d): Same, not a relative
		{"qwzx", nil, nil},
	} {
		got := Related(c.word)
		for _, w := range c.has {
			if !slices.Contains(got, w) {
				t.Errorf("Related(%q) = %v, want %q in it", c.word, got, w)
			}
		}
		for _, w := range c.not {
			if slices.Contains(got, w) {
				t.Errorf("Related(%q) = %v, holds %q", c.word, got, w)
			}
		}
		if c.has == nil && len(got) > 0 && c.word == "qwzx" {
			t.Errorf("Related(%q) = %v for a word the table does not know", c.word, got)
		}
	}
}

// Relatives are for recall only: the store's Same never pairs a word with
// one of them, so no opinion is folded into another on a relative; and no
// two alternatives WordNet lists are relatives.
func TestRelativesNeverSameNorAlternatives(t *testing.T) {
	l := load()
	n := 0
	for a := range l.related {
		for _, b := range Related(a) {
			n++
			if Same(a, b) {
				t.Errorf("the relatives %q and %q are the same by the table", a, b)
			}
		}
	}
	if n < 1000 {
		t.Errorf("only %d relatives loaded", n)
	}
	for _, p := range Alternatives(t) {
		if slices.Contains(Related(p[0]), p[1]) || slices.Contains(Related(p[1]), p[0]) {
			t.Errorf("the alternatives %q and %q are relatives", p[0], p[1])
		}
	}
}

// The alternatives WordNet itself lists (frequent words whose most
// frequent senses are two things of one kind, written by gen from the
// same database as the table) are never the same, in any inflection.
func TestAlternativesFromWordNetNeverSame(t *testing.T) {
	alts := Alternatives(t)
	if len(alts) < 300 {
		t.Fatalf("only %d alternatives in the fixture", len(alts))
	}
	for _, p := range alts {
		for _, f := range [][2]string{{p[0], p[1]}, {p[0] + "s", p[1] + "s"}, {p[0] + "ing", p[1]}} {
			if Same(f[0], f[1]) {
				t.Errorf("the alternatives %q and %q are the same by the table", f[0], f[1])
			}
		}
	}
}

// The table stays small: only what the opinion rules need.
func TestTableSize(t *testing.T) {
	if len(table) > 200<<10 {
		t.Errorf("table.txt is %d bytes", len(table))
	}
	l := load()
	if len(l.pairs) < 1000 {
		t.Errorf("only %d pairs loaded", len(l.pairs))
	}
	if !strings.Contains(table, "Princeton University") {
		t.Error("the table lost WordNet's notice")
	}
}

// Alternatives reads testdata/alternatives.txt.
func Alternatives(t testing.TB) [][2]string {
	f, err := os.Open("testdata/alternatives.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 3 && !strings.HasPrefix(fs[0], "#") {
			out = append(out, [2]string{fs[1], fs[2]})
		}
	}
	return out
}

// Same and Kind take any words the store meets: they never panic, are
// symmetric, and never call a word the same as itself.
func FuzzSame(f *testing.F) {
	for _, s := range [][2]string{{"flights", "fly"}, {"backups", "backing up"}, {"tea", "coffee"}, {"", " "}, {"ies", "s"}, {"Ünïcode", "x y z"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if Same(a, b) != Same(b, a) {
			t.Fatalf("Same(%q, %q) is not symmetric", a, b)
		}
		ka, oka := Kind(a, b)
		kb, okb := Kind(b, a)
		if oka != okb || ka != kb {
			t.Fatalf("Kind(%q, %q) is not symmetric", a, b)
		}
		if Same(a, a) {
			t.Fatalf("Same(%q, itself)", a)
		}
		if oka && Same(a, b) {
			t.Fatalf("%q and %q are the same and two of one kind", a, b)
		}
		for _, r := range Related(a) {
			if Same(a, r) {
				t.Fatalf("%q is a relative of %q and the same", r, a)
			}
		}
	})
}
