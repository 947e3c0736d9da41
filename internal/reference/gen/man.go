package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// manPackages are the packages whose section 1 and 8 manual pages state
// what each command does.
var manPackages = []string{
	"coreutils", "util-linux", "bsdutils", "bsdextrautils", "mount", "procps", "psmisc",
	"iproute2", "kmod", "openssh-client", "git-man", "findutils", "grep", "sed", "tar",
	"gzip", "diffutils", "less", "rsync", "curl",
}

// subcommandTools are, per package, the commands whose subcommands have
// pages of their own named tool-subcommand.
var subcommandTools = map[string][]string{
	"git-man":  {"git"},
	"iproute2": {"ip", "devlink", "rdma", "vdpa", "dcb", "bridge"},
}

// manPages turns the NAME line of each page into "The ls command lists
// directory contents."
func manPages(pkgs map[string]*pkg) ([]fact, error) {
	var out []fact
	for _, name := range manPackages {
		p, err := need(pkgs, name)
		if err != nil {
			return nil, err
		}
		for _, sec := range []string{"1", "8"} {
			dir := "usr/share/man/man" + sec
			ents, err := os.ReadDir(filepath.Join(p.dir, dir))
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				return nil, err
			}
			names := make([]string, 0, len(ents))
			for _, e := range ents {
				if e.Type().IsRegular() && strings.HasSuffix(e.Name(), "."+sec+".gz") {
					names = append(names, e.Name())
				}
			}
			sort.Strings(names)
			for _, file := range names {
				f, err := manFact(p, dir+"/"+file, strings.TrimSuffix(file, "."+sec+".gz"), sec)
				if err != nil {
					return nil, err
				}
				if f.Text != "" {
					out = append(out, f)
				}
			}
		}
	}
	return out, nil
}

func manFact(p *pkg, path, page, sec string) (fact, error) {
	b, err := p.file(path)
	if err != nil {
		return fact{}, err
	}
	src, err := gunzip(b)
	if err != nil {
		return fact{}, fmt.Errorf("gen: %s: %w", path, err)
	}
	names, desc := nameSection(src)
	if desc == "" {
		return fact{}, nil
	}
	cmd := page
	// People say "git rebase" and "ip link", not "git-rebase" and
	// "ip-link": these pages document a subcommand.
	for _, tool := range subcommandTools[p.name] {
		if sub, ok := strings.CutPrefix(page, tool+"-"); ok {
			cmd = tool + " " + sub
		}
	}
	var others []string
	for _, n := range names {
		if n != cmd {
			others = append(others, n)
		}
	}
	subject := "The " + cmd + " command"
	if len(others) > 0 && len(others) <= 4 {
		subject += " (also " + joinAnd(others) + ")"
	}
	text := subject + " " + predicate(page, desc)
	return fact{
		Text:   strings.TrimRight(text, ".;: ") + ".",
		Source: fmt.Sprintf("Debian %s %s, %s(%s) manual page", p.name, p.version, page, sec),
		Topic:  "commands",
	}, nil
}

var (
	shName = regexp.MustCompile(`(?i)^\.sh\s+"?name"?\s*$`)
	shAny  = regexp.MustCompile(`(?i)^\.sh\b`)
)

// nameSection returns the command names and the one-line description of a
// man(7) or mdoc(7) page's NAME section.
func nameSection(src string) ([]string, string) {
	var body []string
	in := false
	for _, l := range strings.Split(src, "\n") {
		switch {
		case shName.MatchString(l):
			in = true
			continue
		case in && shAny.MatchString(l):
			in = false
		}
		if in {
			body = append(body, l)
		}
	}
	if len(body) == 0 {
		return nil, ""
	}
	// mdoc: .Nm name / .Nd description
	var names []string
	desc := ""
	for _, l := range body {
		switch {
		case strings.HasPrefix(l, ".Nm "):
			names = append(names, strings.Trim(roffText(l[4:]), " ,"))
		case strings.HasPrefix(l, ".Nd "):
			desc = roffText(l[4:])
		}
	}
	if desc != "" {
		return names, desc
	}
	var parts []string
	for _, l := range body {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			if i := strings.IndexByte(l, ' '); i > 0 && l[1] != '\\' {
				parts = append(parts, roffText(l[i+1:]))
			}
			continue
		}
		parts = append(parts, roffText(l))
	}
	line := strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
	left, right, ok := strings.Cut(line, " - ")
	if !ok {
		return nil, ""
	}
	for _, n := range strings.Split(left, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	// Two pages in one NAME section ("ip-fou - ... ip-gue - ..."): keep
	// the first description.
	if i := strings.Index(right, " - "); i > 0 {
		if j := strings.LastIndex(right[:i], " "); j > 0 {
			right = right[:j]
		}
	}
	return names, strings.TrimSpace(right)
}

var roffEscapes = strings.NewReplacer(
	`\-`, "-", `\(em`, "-", `\(en`, "-", `\(aq`, "'", `\(cq`, "'", `\(oq`, "'",
	`\(lq`, `"`, `\(rq`, `"`, `\*(lq`, `"`, `\*(rq`, `"`, `\*(Aq`, "'", `\*(aq`, "'", `\&`, "", `\%`, "", `\ `, " ",
	`\e`, `\`, `\'`, "'", `\|`, "", `\^`, "", `\:`, "", `\c`, "",
)

var fontEscape = regexp.MustCompile(`\\f(\[[^\]]*\]|\(..|.)`)

// roffText strips roff escapes and quotes from a text line.
func roffText(s string) string {
	s = fontEscape.ReplaceAllString(s, "")
	s = roffEscapes.Replace(s)
	s = strings.ReplaceAll(s, `"`, "")
	return strings.TrimSpace(s)
}

func gunzip(b []byte) (string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	out, err := io.ReadAll(zr)
	return string(out), err
}

// predicate turns a NAME description into the rest of a sentence about the
// command: "list directory contents" becomes "lists directory contents";
// a description that does not start with a verb is quoted.
func predicate(cmdName, desc string) string {
	words := strings.Fields(desc)
	if len(words) > 1 && strings.EqualFold(words[0], cmdName) && startsWithVerb(words[1]) {
		// "base32 encode/decode data": the name repeated before the verb
		// (but "sort lines of text files" starts with a verb that is the
		// name, and "Devlink tool" has no verb at all).
		words = words[1:]
		desc = strings.Join(words, " ")
	}
	if len(words) > 0 && strings.Contains(words[0], "/") {
		// "encode/decode data"
		alts := strings.Split(words[0], "/")
		all := true
		for _, a := range alts {
			all = all && isVerb(a)
		}
		if all {
			for i, a := range alts {
				alts[i] = thirdPerson(a)
			}
			words[0] = strings.Join(alts, "/")
			return laterVerbs(words)
		}
	}
	switch {
	case len(words) == 0:
		return ""
	case conjugated[strings.ToLower(words[0])]:
		return strings.ToLower(words[0][:1]) + desc[1:]
	case !isVerb(strings.TrimRight(words[0], ",")):
		switch strings.ToLower(words[0]) {
		case "a", "an", "the", "another":
			return "is " + strings.ToLower(desc[:1]) + desc[1:]
		}
		return "is the " + desc
	}
	// Conjugate the leading run of verbs joined by "and", "or", "/" or
	// commas: "compress or expand files", "show / manipulate routing".
	for i := 0; i < len(words); i++ {
		w := strings.TrimRight(words[i], ",")
		if !isVerb(w) {
			break
		}
		words[i] = thirdPerson(w) + words[i][len(w):]
		if i+2 < len(words) && (words[i+1] == "and" || words[i+1] == "or" || words[i+1] == "/" || words[i+1] == "and/or") {
			if isVerb(strings.TrimRight(words[i+2], ",")) {
				i++
				continue
			}
			break
		}
		if !strings.HasSuffix(words[i], ",") {
			break
		}
	}
	return laterVerbs(words)
}

// laterVerbs conjugates a later verb joined by "and" or "or", which shares
// the subject too ("concatenate files and print on the standard output"),
// and joins the words.
func laterVerbs(words []string) string {
	for i := 1; i+1 < len(words); i++ {
		if (words[i] == "and" || words[i] == "or") && isVerb(words[i+1]) {
			words[i+1] = thirdPerson(words[i+1])
		}
	}
	return strings.Join(words, " ")
}

func isVerb(w string) bool { return verbs[strings.ToLower(w)] }

// startsWithVerb: w is a verb, or verbs joined by "/" ("encode/decode").
func startsWithVerb(w string) bool {
	for _, a := range strings.Split(w, "/") {
		if !isVerb(a) {
			return false
		}
	}
	return true
}

// thirdPerson writes a verb in the third person singular, keeping the
// description's own case for everything but the first letter.
func thirdPerson(w string) string {
	l := strings.ToLower(w)
	if irregular, ok := map[string]string{"do": "does", "go": "goes", "be": "is", "have": "has"}[l]; ok {
		return irregular
	}
	switch {
	case strings.HasSuffix(l, "s"), strings.HasSuffix(l, "sh"), strings.HasSuffix(l, "ch"), strings.HasSuffix(l, "x"), strings.HasSuffix(l, "z"):
		l += "es"
	case strings.HasSuffix(l, "y") && len(l) > 1 && !strings.ContainsRune("aeiou", rune(l[len(l)-2])):
		l = l[:len(l)-1] + "ies"
	default:
		l += "s"
	}
	return l
}
