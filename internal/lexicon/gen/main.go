// Command gen writes the lexicon's table (../table.txt) and its test
// fixture of alternatives (../testdata/alternatives.txt) from WordNet 3.0
// as Debian's wordnet-base installs it (/usr/share/wordnet). The build
// never needs WordNet: the table is committed, and `go generate
// ./internal/lexicon` rebuilds it after `apt-get install wordnet-base`.
//
// What it keeps (the lexicon's doc comment says why each is safe):
//
//	d  a noun and the verb it names the act of, linked by WordNet's
//	   "derivationally related form" pointer between those two lemmas,
//	   where the noun sense is an act, event or process (flight ↔ fly,
//	   never runner ↔ run: a person is not the act), or the noun is the
//	   verb with its particle written as one word (backup ↔ back up);
//	   the verb sense is one of the verb's three most frequent senses and
//	   the noun sense one of the noun's three, both words are in WordNet's
//	   sense-tagged corpus (frequent words) and start with the same two
//	   letters (a form of one word: flight/fly, not drive/campaign).
//	s  two lemmas of one synset that is the most frequent sense of both
//	   (television ↔ tv, film ↔ movie).
//	f  two frequent words of one family the lines above leave out, for
//	   recall only (teach ↔ teacher; see relatedPairs).
//	x  an irregular inflection of a lemma in the table (flew → fly).
//	k  a kind and the frequent nouns whose most frequent sense is directly
//	   of that kind ("k beverage coffee tea …"): alternatives, never the
//	   same; search may only hint that a newer choice of one kind updates
//	   an older one.
//
// A pair is dropped when its two lemmas are also alternatives anywhere
// in their three most frequent senses: two different synsets under one
// direct hypernym (tea and coffee, morning and evening). The fixture lists
// such alternatives among frequent words, for the tests that check they
// never meet.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

const senses = 3 // how many of a lemma's most frequent senses count

type pointer struct {
	sym    string
	target string // pos:offset
	src    int    // source word number, 0 = the whole synset
	dst    int
}

type synset struct {
	key     string // pos:offset
	lexfile int
	words   []string
	ptrs    []pointer
}

type lemma struct {
	synsets []string // in frequency order
	tagged  int
}

var (
	license string // WordNet's notice, as comment lines
	synsets = map[string]*synset{}
	index   = map[string]map[string]*lemma{} // pos → lemma → senses
)

func main() {
	dir := flag.String("wordnet", "/usr/share/wordnet", "WordNet 3.0 database directory")
	out := flag.String("out", "table.txt", "table to write")
	fixture := flag.String("fixture", "testdata/alternatives.txt", "alternatives fixture to write")
	flag.Parse()
	for _, pos := range []string{"noun", "verb"} {
		readData(filepath.Join(*dir, "data."+pos))
		readIndex(filepath.Join(*dir, "index."+pos), pos[:1])
	}
	pairs := map[[2]string]string{}
	add := func(kind, a, b string) {
		if a == b || !plain(a) || !plain(b) || alternatives(a, b) {
			return
		}
		if a > b {
			a, b = b, a
		}
		// One letter per pair whatever the maps' order: d before s.
		if k, ok := pairs[[2]string{a, b}]; !ok || kind < k {
			pairs[[2]string{a, b}] = kind
		}
	}
	// d: noun ↔ verb. An act noun's synset names the act of the verb
	// sense it points to, so every lemma of the synset does ("flight",
	// "flying" ↔ "fly", though WordNet links only "flying").
	for _, s := range synsets {
		if !strings.HasPrefix(s.key, "n:") {
			continue
		}
		for _, p := range s.ptrs {
			if p.sym != "+" || !strings.HasPrefix(p.target, "v:") || p.src == 0 {
				continue
			}
			vs := synsets[p.target]
			verb := vs.words[p.dst-1]
			vl := index["v"][verb]
			if vl == nil {
				continue
			}
			frequent := slices.Contains(top(vl), p.target)
			for _, noun := range s.words {
				nl := index["n"][noun]
				if nl == nil {
					continue
				}
				joined := strings.Contains(verb, "_") && strings.ReplaceAll(verb, "_", "") == noun && noun == s.words[p.src-1]
				// A form of the same word: the synset's other lemmas can
				// be other words of the act ("drive" in a campaign), and
				// the store meets words without their part of speech.
				common := nl.tagged > 0 && vl.tagged > 0 && !strings.Contains(noun, "_") && len(noun) > 2 && len(verb) > 2 && noun[:2] == verb[:2]
				if joined && s.lexfile != 18 || act(s.lexfile) && frequent && common && slices.Contains(top(nl), s.key) {
					add("d", noun, verb)
				}
			}
		}
	}
	// s: the first sense of both.
	for _, pos := range []string{"n", "v"} {
		for w, l := range index[pos] {
			s := synsets[l.synsets[0]]
			for _, o := range s.words {
				if ol := index[pos][o]; ol != nil && ol.synsets[0] == s.key && l.tagged > 0 && ol.tagged > 0 &&
					!strings.Contains(w, "_") && !strings.Contains(o, "_") {
					add("s", w, o)
				}
			}
		}
	}
	related := relatedPairs(pairs)
	// k: kinds of things, for a hint only ([lexicon.Kind]).
	kinds := kindLines()
	keys := make([][2]string, 0, len(pairs))
	inTable := map[string]bool{}
	for k := range pairs {
		keys = append(keys, k)
		inTable[k[0]], inTable[k[1]] = true, true
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return strings.Compare(a[0]+" "+a[1], b[0]+" "+b[1]) })
	var lines []string
	for _, k := range keys {
		lines = append(lines, fmt.Sprintf("%s %s %s", pairs[k], k[0], k[1]))
	}
	for _, pos := range []string{"noun", "verb"} {
		for _, e := range readExc(filepath.Join(*dir, pos+".exc")) {
			if inTable[e[1]] && plain(e[0]) {
				lines = append(lines, fmt.Sprintf("x %s %s", e[0], e[1]))
			}
		}
	}
	slices.Sort(lines[len(keys):])
	lines = slices.Compact(lines)
	lines = append(lines, related...)
	lines = append(lines, kinds...)
	head := "# Generated by internal/lexicon/gen from WordNet 3.0 (go generate ./internal/lexicon). Do not edit.\n" +
		"# WordNet's license, which asks that its notice appear on all copies:\n#\n" + license + "#\n"
	must(os.WriteFile(*out, []byte(head+strings.Join(lines, "\n")+"\n"), 0o644))
	must(os.WriteFile(*fixture, []byte(head+strings.Join(alternativeFixture(), "\n")+"\n"), 0o644))
	log.Printf("%d pairs, %d lines", len(keys), len(lines))
}

// relatedPairs are the f lines: two frequent words of one family that the
// table does not already hold as one word (d or s), for recall only (a
// relative is weaker literal evidence of a memory; the store never reads
// these, and [lexicon.Same] never pairs them). Both lemmas are in WordNet's
// sense-tagged corpus, start with the same three letters (a form of one
// word), are no alternatives of each other, and a "derivationally
// related form" pointer joins one of the two most frequent senses of
// each: teach ↔ teacher, invitation ↔ invite, employ ↔ employee.
//
// Only one hop: employee and employer are each a relative of employ, never
// of each other.
func relatedPairs(have map[[2]string]string) []string {
	const near = 2 // senses that count for a relative
	frequent := func(pos, w string) *lemma {
		l := index[pos][w]
		if l == nil || l.tagged == 0 || !plain(w) || strings.Contains(w, "_") {
			return nil
		}
		return l
	}
	nearSense := func(l *lemma, key string) bool { return slices.Contains(l.synsets[:min(near, len(l.synsets))], key) }
	out := map[[2]string]bool{}
	for _, s := range synsets {
		for _, p := range s.ptrs {
			if p.sym != "+" || p.src == 0 || p.dst == 0 || synsets[p.target] == nil {
				continue
			}
			ts := synsets[p.target]
			a, b := s.words[p.src-1], ts.words[p.dst-1]
			la, lb := frequent(s.key[:1], a), frequent(p.target[:1], b)
			if la == nil || lb == nil || a == b || len(a) < 4 || len(b) < 4 || a[:3] != b[:3] ||
				!nearSense(la, s.key) || !nearSense(lb, ts.key) || alternatives(a, b) {
				continue
			}
			key := [2]string{min(a, b), max(a, b)}
			if _, ok := have[key]; !ok {
				out[key] = true
			}
		}
	}
	lines := make([]string, 0, len(out))
	for k := range out {
		lines = append(lines, "f "+k[0]+" "+k[1])
	}
	slices.Sort(lines)
	return lines
}

// act reports whether a noun lexicographer file names an act, an event or
// a process (noun.act, noun.event, noun.process).
func act(lexfile int) bool { return lexfile == 4 || lexfile == 11 || lexfile == 22 }

// plain: lowercase letters, at most one underscore (a verb and its
// particle), three letters or more.
func plain(w string) bool {
	if len(w) < 3 || strings.Count(w, "_") > 1 {
		return false
	}
	for _, r := range w {
		if (r < 'a' || r > 'z') && r != '_' {
			return false
		}
	}
	return true
}

func top(l *lemma) []string { return l.synsets[:min(senses, len(l.synsets))] }

// hypernyms of a synset (direct).
func hypernyms(key string) []string {
	var out []string
	for _, p := range synsets[key].ptrs {
		if p.sym == "@" || p.sym == "@i" {
			out = append(out, p.target)
		}
	}
	return out
}

// alternatives reports whether two lemmas are, in any of their most
// frequent senses, two different things of one kind: different synsets
// with a direct hypernym in common.
func alternatives(a, b string) bool {
	for _, pos := range []string{"n", "v"} {
		la, lb := index[pos][a], index[pos][b]
		if la == nil || lb == nil {
			continue
		}
		for _, x := range top(la) {
			for _, y := range top(lb) {
				if x == y {
					continue
				}
				for _, h := range hypernyms(x) {
					if slices.Contains(hypernyms(y), h) {
						return true
					}
				}
			}
		}
	}
	return false
}

// alternativeFixture: pairs of frequent single-word nouns and verbs whose
// most frequent senses are different synsets under one direct hypernym
// and that share no synset in their top senses; at most four per
// hypernym, at most 600 in all.
func alternativeFixture() []string {
	var out []string
	for _, pos := range []string{"n", "v"} {
		byHyper := map[string][]string{}
		for w, l := range index[pos] {
			if l.tagged < 3 || !plain(w) || strings.Contains(w, "_") {
				continue
			}
			for _, h := range hypernyms(l.synsets[0]) {
				byHyper[h] = append(byHyper[h], w)
			}
		}
		hs := make([]string, 0, len(byHyper))
		for h := range byHyper {
			hs = append(hs, h)
		}
		slices.Sort(hs)
		for _, h := range hs {
			ws := byHyper[h]
			slices.Sort(ws)
			n := 0
			for i := 0; i < len(ws) && n < 4; i++ {
				for j := i + 1; j < len(ws) && n < 4; j++ {
					if index[pos][ws[i]].synsets[0] != index[pos][ws[j]].synsets[0] {
						out = append(out, pos+" "+ws[i]+" "+ws[j])
						n++
					}
				}
			}
		}
	}
	slices.Sort(out)
	if len(out) > 600 {
		step := float64(len(out)) / 600
		var thin []string
		for i := 0; i < 600; i++ {
			thin = append(thin, out[int(float64(i)*step)])
		}
		out = thin
	}
	return out
}

// kindLines groups the single-word nouns of WordNet's sense-tagged corpus
// (the frequent ones) by the direct hypernym of their most frequent sense, named by its first
// lemma: one line per kind with two members or more.
func kindLines() []string {
	members := map[string][]string{}
	for w, l := range index["n"] {
		if l.tagged < 1 || !plain(w) || strings.Contains(w, "_") {
			continue
		}
		for _, h := range hypernyms(l.synsets[0]) {
			members[h] = append(members[h], w)
		}
	}
	var out []string
	for h, ws := range members {
		if len(ws) < 2 {
			continue
		}
		slices.Sort(ws)
		name := strings.ReplaceAll(synsets[h].words[0], " ", "_")
		out = append(out, "k "+name+"."+strings.TrimPrefix(h, "n:")+" "+strings.Join(ws, " "))
	}
	slices.Sort(out)
	return out
}

func readData(path string) {
	f, err := os.Open(path)
	must(err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			if strings.HasSuffix(path, "data.noun") {
				_, text, _ := strings.Cut(strings.TrimSpace(line), " ")
				license += strings.TrimRight("# "+strings.TrimSpace(text), " ") + "\n"
			}
			continue // license header
		}
		body, _, _ := strings.Cut(line, " | ")
		f := strings.Fields(body)
		pos := f[2]
		if pos == "s" {
			pos = "a"
		}
		lexfile, _ := strconv.Atoi(f[1])
		s := &synset{key: pos + ":" + f[0], lexfile: lexfile}
		wc, _ := strconv.ParseInt(f[3], 16, 0)
		i := 4
		for k := 0; k < int(wc); k++ {
			w := strings.ToLower(f[i])
			if p := strings.IndexByte(w, '('); p >= 0 {
				w = w[:p] // adjective markers
			}
			s.words = append(s.words, w)
			i += 2
		}
		pc, _ := strconv.Atoi(f[i])
		i++
		for k := 0; k < pc; k++ {
			st := f[i+3]
			src, _ := strconv.ParseInt(st[:2], 16, 0)
			dst, _ := strconv.ParseInt(st[2:], 16, 0)
			tp := f[i+2]
			if tp == "s" {
				tp = "a"
			}
			s.ptrs = append(s.ptrs, pointer{sym: f[i], target: tp + ":" + f[i+1], src: int(src), dst: int(dst)})
			i += 4
		}
		synsets[s.key] = s
	}
	must(sc.Err())
}

func readIndex(path, pos string) {
	f, err := os.Open(path)
	must(err)
	defer f.Close()
	index[pos] = map[string]*lemma{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue
		}
		f := strings.Fields(line)
		n, _ := strconv.Atoi(f[2])
		pc, _ := strconv.Atoi(f[3])
		tagged, _ := strconv.Atoi(f[5+pc])
		l := &lemma{tagged: tagged}
		for _, off := range f[6+pc : 6+pc+n] {
			l.synsets = append(l.synsets, pos+":"+off)
		}
		index[pos][f[0]] = l
	}
	must(sc.Err())
}

func readExc(path string) [][2]string {
	b, err := os.ReadFile(path)
	must(err)
	var out [][2]string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 {
			out = append(out, [2]string{f[0], f[1]})
		}
	}
	return out
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
