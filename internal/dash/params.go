package dash

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/compartment/compartment/internal/vault"
)

// Bounds on what a request may ask for. A query longer than a memory can
// be finds nothing a shorter one would not.
const (
	maxQueryChars = 2000
	maxFieldChars = 300
	maxTags       = 8
	maxTopK       = 100
)

// errParam is a request parameter the dashboard refuses; the message says
// which and why.
var errParam = errors.New("bad parameter")

func paramErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errParam, fmt.Sprintf(format, args...))
}

// searchParams are the search page's inputs, kept as given so the form can
// show them again.
type searchParams struct {
	Query, Namespace, Since, Until string
	Tags                           []string
	All                            bool
	TopK                           int
}

// parseSearch reads q, ns, tag (repeatable, or comma-separated), since,
// until, all and k from a query string.
func parseSearch(v url.Values) (searchParams, error) {
	var p searchParams
	var err error
	if p.Query, err = field(v, "q", maxQueryChars); err != nil {
		return p, err
	}
	if p.Namespace, err = field(v, "ns", maxFieldChars); err != nil {
		return p, err
	}
	for _, given := range v["tag"] {
		for _, t := range strings.Split(given, ",") {
			if t = strings.TrimSpace(t); t == "" {
				continue
			}
			if len(t) > maxFieldChars || !utf8.ValidString(t) {
				return p, paramErr("tag: keep it under %d bytes of text", maxFieldChars)
			}
			p.Tags = append(p.Tags, t)
		}
	}
	if len(p.Tags) > maxTags {
		return p, paramErr("tag: at most %d tags", maxTags)
	}
	if p.Since, err = date(v, "since"); err != nil {
		return p, err
	}
	if p.Until, err = date(v, "until"); err != nil {
		return p, err
	}
	if p.Since != "" && p.Until != "" && p.Until < p.Since {
		return p, paramErr("until %s is before since %s", p.Until, p.Since)
	}
	p.All = flag(v, "all")
	if k := strings.TrimSpace(v.Get("k")); k != "" {
		n, err := strconv.Atoi(k)
		if err != nil || n < 0 || n > maxTopK {
			return p, paramErr("k: a number from 0 (what is relevant) to %d", maxTopK)
		}
		p.TopK = n
	}
	return p, nil
}

// request is the vault search these parameters ask for, explained.
func (p searchParams) request() vault.SearchRequest {
	req := vault.SearchRequest{Query: p.Query, TopK: p.TopK, Namespace: p.Namespace, Tags: p.Tags,
		Since: p.Since, Until: p.Until, Explain: true}
	if p.All {
		all := true
		req.IncludeReference = &all
	}
	return req
}

// parseList reads the list page's filter: ns, tag, kind, caller, source,
// day and superseded.
func parseList(v url.Values) (listFilter, error) {
	var f listFilter
	for _, p := range []struct {
		name string
		dst  *string
	}{
		{"ns", &f.Namespace}, {"tag", &f.Tag}, {"kind", &f.Kind}, {"caller", &f.Caller}, {"source", &f.Source},
	} {
		s, err := field(v, p.name, maxFieldChars)
		if err != nil {
			return f, err
		}
		*p.dst = s
	}
	var err error
	if f.Day, err = date(v, "day"); err != nil {
		return f, err
	}
	f.Superseded = flag(v, "superseded")
	f.All = flag(v, "all")
	return f, nil
}

// field is one text parameter, trimmed, valid UTF-8 and at most max bytes.
func field(v url.Values, name string, max int) (string, error) {
	s := strings.TrimSpace(v.Get(name))
	if len(s) > max {
		return "", paramErr("%s: keep it under %d bytes", name, max)
	}
	if !utf8.ValidString(s) {
		return "", paramErr("%s: not valid text", name)
	}
	return s, nil
}

// date is a YYYY-MM-DD parameter, or "".
func date(v url.Values, name string) (string, error) {
	s := strings.TrimSpace(v.Get(name))
	if s == "" {
		return "", nil
	}
	if _, err := time.Parse(vault.DateLayout, s); err != nil {
		return "", paramErr("%s: use a date like 2026-08-01", name)
	}
	return s, nil
}

// flag is a checkbox: present and not "0", "false" or "off".
func flag(v url.Values, name string) bool {
	if !v.Has(name) {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(v.Get(name))) {
	case "0", "false", "off", "no":
		return false
	}
	return true
}

// idPattern is a record id or a unique prefix of one, as vault.Get takes.
var idPattern = regexp.MustCompile(`^[0-9a-f]{6,32}$`)

// parseID checks a memory id from the path.
func parseID(s string) (string, bool) {
	s = strings.ToLower(s)
	return s, idPattern.MatchString(s)
}
