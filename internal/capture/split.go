package capture

import (
	"regexp"
	"strings"
)

// MaxChars is the longest claim produced, the vault's default
// max_memory_chars.
const MaxChars = 200

var (
	bulletRe   = regexp.MustCompile(`^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?`)
	headingRe  = regexp.MustCompile(`^\s{0,3}#{1,6}(\s|$)`)
	linkOnlyRe = regexp.MustCompile(`^\[[^\]]*\]\([^)]*\.md\)\s*(?:[-—–:]\s*.*)?$`)
	emphasisRe = regexp.MustCompile("(\\*\\*|__|`)")
)

// SplitMarkdown splits a memory file (CLAUDE.md, a file in Claude Code's
// memory directory) into claims of at most max characters: each list item
// and each sentence of a paragraph is one, headings, front matter, code
// blocks, HTML comments, tables and index lines that only link to another
// memory file are left out, and emphasis marks are dropped.
func SplitMarkdown(text string, max int) []string {
	if max <= 0 {
		max = MaxChars
	}
	text = CleanText(strings.ReplaceAll(text, "\r\n", "\n"))
	text = stripFrontMatter(text)
	text = stripComments(text)
	var out []string
	var para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, sentences(strings.Join(para, " "), max)...)
			para = nil
		}
	}
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			flush()
			fence = t[:3]
		case t == "" || headingRe.MatchString(line) || strings.HasPrefix(t, "|") || t == "---" || t == "***":
			flush()
		case bulletRe.MatchString(line):
			flush()
			item := bulletRe.ReplaceAllString(line, "")
			if linkOnlyRe.MatchString(strings.TrimSpace(item)) {
				continue
			}
			para = append(para, strings.TrimSpace(item))
			flush()
		case strings.HasPrefix(t, ">"):
			para = append(para, strings.TrimSpace(strings.TrimLeft(t, "> ")))
		default:
			para = append(para, t)
		}
	}
	flush()
	return out
}

// SplitText splits plain text (a chat reply) into claims.
func SplitText(text string, max int) []string {
	if max <= 0 {
		max = MaxChars
	}
	var out []string
	for _, p := range strings.Split(CleanText(strings.ReplaceAll(text, "\r\n", "\n")), "\n") {
		p = bulletRe.ReplaceAllString(p, "")
		out = append(out, sentences(p, max)...)
	}
	return out
}

func stripFrontMatter(text string) string {
	if !strings.HasPrefix(text, "---\n") {
		return text
	}
	if end := strings.Index(text[4:], "\n---"); end >= 0 {
		rest := text[4+end+4:]
		return strings.TrimPrefix(rest, "\n")
	}
	return text
}

func stripComments(text string) string {
	for {
		b := strings.Index(text, "<!--")
		if b < 0 {
			return text
		}
		e := strings.Index(text[b:], "-->")
		if e < 0 {
			return text[:b]
		}
		text = text[:b] + text[b+e+3:]
	}
}

// sentences splits one paragraph into sentences, then any sentence still
// longer than max at clause breaks and finally between words.
func sentences(p string, max int) []string {
	var out []string
	for _, s := range Sentences(strings.Join(strings.Fields(p), " ")) {
		s = strings.Join(strings.Fields(emphasisRe.ReplaceAllString(s, "")), " ")
		if len([]rune(s)) > max {
			out = append(out, wrap(s, max)...)
		} else if hasLetters(s) {
			out = append(out, s)
		}
	}
	return out
}

// wrap breaks s at "; " where it can, else between words, into pieces of
// at most max characters.
func wrap(s string, max int) []string {
	var out []string
	for _, part := range strings.Split(s, "; ") {
		var cur []string
		n := 0
		for _, w := range strings.Fields(part) {
			rw := len([]rune(w))
			if rw > max {
				w, rw = string([]rune(w)[:max]), max
			}
			if n > 0 && n+1+rw > max {
				out = append(out, strings.Join(cur, " "))
				cur, n = nil, 0
			}
			if n > 0 {
				n++
			}
			cur = append(cur, w)
			n += rw
		}
		if len(cur) > 0 && hasLetters(strings.Join(cur, " ")) {
			out = append(out, strings.Join(cur, " "))
		}
	}
	return out
}

func hasLetters(s string) bool {
	n := 0
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127 {
			n++
		}
	}
	return n >= 2
}

// File turns a memory file into classified claims.
func File(text string, max int) []Memory { return classified(SplitMarkdown(text, max)) }
