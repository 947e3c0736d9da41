package train

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Question ↔ answer and heading ↔ text pairs from the documentation the
// corpus lock pins (FAQs of Debian, Perl, Python and Git; mail subjects).
// They teach question wording against statement wording, which the
// package descriptions (a noun phrase ↔ a paragraph) do not.

// faqAnswerWords caps an answer: its first sentences carry the answer.
const faqAnswerWords = 60

// qaCollector gathers one question's answer lines and emits the pair
// when the next question (or the end) comes.
type qaCollector struct {
	emit func(a, b string)
	keep func(q string) bool // nil: every question
	q    string
	body []string
}

func (c *qaCollector) start(q string) { c.flush(); c.q = q }

func (c *qaCollector) add(line string) {
	if c.q != "" && line != "" {
		c.body = append(c.body, line)
	}
}

func (c *qaCollector) flush() {
	if c.q != "" && (c.keep == nil || c.keep(c.q)) {
		c.emit(c.q, strings.Join(c.body, " "))
	}
	c.q, c.body = "", nil
}

var debianFAQHeading = regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)*\. (.+)$`)

// debianFAQPairs pairs each question of the Debian FAQ (plain-text edition:
// "1.2. What is Debian GNU/Linux?" at the start of a line, possibly
// continued on the next indented line) with the text below it.
func debianFAQPairs(dir string, emit func(a, b string)) error {
	text, err := readMaybeGzip(filepath.Join(dir, "usr/share/doc/debian/FAQ/debian-faq.en.txt.gz"))
	if err != nil {
		return err
	}
	lines := strings.Split(strings.ReplaceAll(text, "\u00a0", " "), "\n")
	c := qaCollector{emit: emit}
	for i := 0; i < len(lines); i++ {
		if m := debianFAQHeading.FindStringSubmatch(lines[i]); m != nil {
			q := m[2]
			for k := 0; k < 2 && !strings.HasSuffix(q, "?") && i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != ""; k++ {
				i++
				q += " " + strings.TrimSpace(lines[i])
			}
			c.start(q)
			continue
		}
		if len(c.body) < faqAnswerWords {
			c.add(strings.TrimSpace(lines[i]))
		}
	}
	c.flush()
	return nil
}

var podCode = regexp.MustCompile(`[A-Z]<+(?:\s)?([^<>]*?)(?:\s)?>+`)

// perlFAQPairs pairs each "=head2" question of perlfaq1–9 with the prose
// paragraphs under it (verbatim code, indented, is left out).
func perlFAQPairs(dir string, emit func(a, b string)) error {
	perlfaq := func(p string) bool {
		return strings.HasPrefix(filepath.Base(p), "perlfaq") && strings.HasSuffix(p, ".pod")
	}
	return eachFile(filepath.Join(dir, "usr/share/perl"), perlfaq, func(text string) {
		c := qaCollector{emit: emit}
		for _, p := range blankLine.Split(text, -1) {
			switch {
			case strings.HasPrefix(p, "=head2 "):
				c.start(podCode.ReplaceAllString(strings.TrimSpace(strings.TrimPrefix(p, "=head2 ")), "$1"))
			case strings.HasPrefix(p, "="):
				if !strings.HasPrefix(p, "=item") && !strings.HasPrefix(p, "=over") && !strings.HasPrefix(p, "=back") {
					c.flush()
				}
			case strings.HasPrefix(p, " ") || strings.HasPrefix(p, "\t"):
			default:
				c.add(podCode.ReplaceAllString(strings.TrimSpace(p), "$1"))
			}
		}
		c.flush()
	})
}

var (
	rstUnderline = regexp.MustCompile(`^(={3,}|-{3,}|~{3,}|\^{3,}|\*{3,}|"{3,}|#{3,}|\+{3,})\s*$`)
	rstRole      = regexp.MustCompile("(?::[a-z:]+:)?`+([^`<]*?)\\s*(?:<[^>]*>)?`+_*")
)

// pythonFAQPairs pairs each question heading of the Python FAQ (reST
// sources: a title line over a line of one repeated punctuation mark)
// with the prose under it (directives and indented blocks left out).
func pythonFAQPairs(dir string, emit func(a, b string)) error {
	faq := func(p string) bool { return strings.Contains(p, "/_sources/faq/") && strings.HasSuffix(p, ".rst.txt") }
	isQuestion := func(q string) bool { return strings.HasSuffix(q, "?") }
	return eachFile(filepath.Join(dir, "usr/share/doc"), faq, func(text string) {
		lines := strings.Split(text, "\n")
		c := qaCollector{emit: emit, keep: isQuestion}
		for i := 0; i < len(lines); i++ {
			l := lines[i]
			if i+1 < len(lines) && strings.TrimSpace(l) != "" && rstUnderline.MatchString(lines[i+1]) && !rstUnderline.MatchString(l) {
				c.start(rstRole.ReplaceAllString(strings.TrimSpace(l), "$1"))
				i++
				continue
			}
			if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "..") || rstUnderline.MatchString(l) {
				continue
			}
			c.add(rstRole.ReplaceAllString(strings.TrimSpace(l), "$1"))
		}
		c.flush()
	})
}

// roffFAQPairs pairs the questions of a FAQ man page (gitfaq(7): a ".PP"
// line, then a line ending in "?", then the answer indented by ".RS" up to
// ".RE") with their answers.
func roffFAQPairs(dir string, emit func(a, b string)) error {
	return forEachManPage(dir, func(text string) {
		lines := strings.Split(text, "\n")
		for i := 0; i+2 < len(lines); i++ {
			if lines[i] != ".PP" || !strings.HasSuffix(lines[i+1], "?") || !strings.HasPrefix(lines[i+2], ".RS") {
				continue
			}
			q := roffEscape.ReplaceAllString(lines[i+1], "")
			var body []string
			for j := i + 3; j < len(lines) && !strings.HasPrefix(lines[j], ".RE"); j++ {
				if !strings.HasPrefix(lines[j], ".") && !strings.HasPrefix(lines[j], "'") {
					body = append(body, roffEscape.ReplaceAllString(lines[j], ""))
				}
			}
			emit(q, strings.Join(body, " "))
		}
	})
}

var (
	mailSubjectTag = regexp.MustCompile(`(?i)^\s*((re|fwd?|aw)\s*:\s*|\[[^\]]*\]\s*)+`)
	mailSubject    = regexp.MustCompile(`(?m)^Subject:[ \t]*(.*)$`)
	mailHeaderLine = regexp.MustCompile(`^[|>]?\s*(Date|From|To|Cc|Sent|Subject|Message-I[Dd]|Reply-To|In-Reply-To|References):`)
)

// mailSubjectPairs pairs the subject of each legitimate ("ham") mail of
// the SpamAssassin corpus, list tags and "Re:" removed, with the body's
// own text: quoted lines ("> …") and the signature left out.
func mailSubjectPairs(dir string, emit func(a, b string)) error {
	root := filepath.Join(dir, "package/spam-assassin/data")
	for _, sub := range []string{"easy-ham-1", "easy-ham-2", "hard-ham-1"} {
		err := eachText(filepath.Join(root, sub), func(text string) {
			head, body, ok := strings.Cut(text, "\n\n")
			m := mailSubject.FindStringSubmatch(head)
			if !ok || m == nil || strings.Contains(strings.ToLower(head), "content-type: text/html") {
				return
			}
			subj := strings.TrimSpace(mailSubjectTag.ReplaceAllString(m[1], ""))
			var keep []string
			for _, l := range strings.Split(body, "\n") {
				t := strings.TrimSpace(l)
				if t == "--" || t == "-- " || strings.HasPrefix(t, "_____") {
					break
				}
				if strings.HasPrefix(t, ">") || strings.HasPrefix(t, "|") || strings.HasSuffix(t, "wrote:") || mailHeaderLine.MatchString(t) || (len(t) > 60 && !strings.Contains(t, " ")) {
					continue
				}
				if t != "" {
					keep = append(keep, t)
				}
			}
			emit(subj, strings.Join(keep, " "))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// wordnetCommonDefinitionPairs pairs the lemmas of each WordNet synset that
// is one of the first two senses of some word and attested in WordNet's
// sense-tagged text (index.*: "tagsense_cnt") with its bare definition:
// "passport: a document issued by a country to a citizen allowing that
// person to travel abroad". Rare senses are left out, so everyday words
// learn their everyday meaning.
func wordnetCommonDefinitionPairs(dir string, emit func(a, b string)) error {
	common := map[string]bool{}
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		text, err := readMaybeGzip(filepath.Join(dir, "usr/share/wordnet", "index."+pos))
		if err != nil {
			return err
		}
		for _, line := range strings.Split(text, "\n") {
			f := strings.Fields(line)
			if len(f) < 6 || line[0] == ' ' {
				continue
			}
			var senses, ptrs, tagged int
			fmt.Sscanf(f[2], "%d", &senses)
			fmt.Sscanf(f[3], "%d", &ptrs)
			if len(f) < 6+ptrs+senses {
				continue
			}
			fmt.Sscanf(f[5+ptrs], "%d", &tagged)
			offsets := f[6+ptrs:]
			for k := 0; k < min(2, tagged, len(offsets)); k++ {
				common[pos[:1]+offsets[k]] = true
			}
		}
	}
	return forEachSynset(dir, func(s synset) {
		if !common[s.key] {
			return
		}
		def := strings.TrimSpace(strings.Split(s.gloss, "; ")[0])
		if def != "" && !strings.HasPrefix(def, "\"") {
			emit(strings.Join(s.lemmas, ", "), def)
		}
	})
}

var packageNameAffix = regexp.MustCompile(`^(lib|python3?-|golang-|ruby-|node-|r-cran-|r-bioc-|perl-|php-|fonts-|texlive-|gir1\.2-|elpa-|haskell-|ocaml-|lua-)|(-dev|-doc|-common|-data|-utils|-tools|-bin|-perl|-java|-dbg|[0-9.+~-]+)$`)

// debianNamePairs pairs a package's one-word name, its packaging affixes removed
// ("libredis-perl" → "redis"), with its synopsis: what a program or
// library of that name is ("pgbouncer" ↔ "lightweight connection pooler
// for PostgreSQL"). A name outside the vocabulary gives no pair (the
// trainer drops unknown words).
func debianNamePairs(dir string, emit func(a, b string)) error {
	text, err := readMaybeGzip(filepath.Join(dir, "Translation-en"))
	if err != nil {
		return err
	}
	for _, rec := range strings.Split(text, "\n\n") {
		name, rest, ok := strings.Cut(strings.TrimPrefix(rec, "Package: "), "\n")
		_, desc, ok2 := strings.Cut(rest, "Description-en: ")
		if !ok || !ok2 || strings.HasPrefix(rec, "\n") {
			continue
		}
		for i := 0; i < 3; i++ {
			name = packageNameAffix.ReplaceAllString(name, "")
		}
		synopsis, _, _ := strings.Cut(desc, "\n")
		// One word only: "gnuradio-iqbalance" says little word by word.
		if len(name) >= 3 && !strings.ContainsAny(name, "0123456789-.+") {
			emit(name, synopsis)
		}
	}
	return nil
}
