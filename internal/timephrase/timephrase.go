// Package timephrase finds the past time an English question is about ("in
// March 2025", "last spring", "back in 2024", "two weeks ago", "before we
// moved to Berlin") and turns it into a span of days, relative to the day
// the question is asked. It is deterministic: the same text and day give
// the same span. It knows nothing of memories; a span bounded by an event
// ("before we moved to Berlin") names the event, and the caller finds its
// date.
package timephrase

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Span is the time a question is about: the days from Start to End, both
// included, at midnight in the question day's location. A zero Start
// means "any time up to End".
type Span struct {
	Start, End time.Time
	// Phrase is the words of the question the span was read from.
	Phrase string
	// Event is set for a span that ends before an event the question
	// names ("we moved to Berlin"); Start and End are then zero until the
	// caller dates the event ([Span.Before]).
	Event string
}

// Before is the span of the days before the event's day.
func (s Span) Before(event time.Time) Span {
	d := day(event)
	return Span{End: d.AddDate(0, 0, -1), Phrase: s.Phrase, Event: s.Event}
}

// Past reports whether the span is dated and ends before today: only then
// does reading the vault as of it differ from reading it now.
func (s Span) Past(now time.Time) bool {
	return !s.End.IsZero() && s.End.Before(day(now))
}

var months = map[string]time.Month{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
	"june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sep": 9, "sept": 9,
	"october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}

var numbers = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a few": 3, "several": 3,
}

var weekdays = map[string]time.Weekday{
	"sunday": 0, "monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6,
}

const (
	monthRE  = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)`
	seasonRE = `(spring|summer|autumn|fall|winter)`
	yearRE   = `((?:19|20)\d\d)`
	numRE    = `(a couple of|a few|several|an|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+)`
	unitRE   = `(day|week|month|year)s?`
	partRE   = `(?:(early|mid|late|the start of|the end of|the beginning of)[ -]+)?`
	// A phrase after "since", "after" or "from" starts a period that runs
	// to today; one after "next" or "until next" is in the future.
	blockRE = `(?:since|after|from|next|until|till)\s+(?:the\s+)?$`
)

// rule is one pattern and how its match becomes a span.
type rule struct {
	re   *regexp.Regexp
	span func(m []string, now time.Time) (Span, bool)
}

var rules = []rule{
	// "before we moved to Berlin", "before I joined Kassa"
	{regexp.MustCompile(`\b(?:before|prior to)\s+((?:we|i|my|our)\s+[a-z][a-z' -]*?[a-z])\s*(?:[?.!,;]|$)`), func(m []string, _ time.Time) (Span, bool) {
		return Span{Event: m[1]}, true
	}},
	// "on 2025-03-14", "as of 2025-03-14"
	{regexp.MustCompile(`\b(?:on|as of|at|in|by)\s+(\d{4})-(\d\d)-(\d\d)\b`), func(m []string, now time.Time) (Span, bool) {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		return daySpan(y, time.Month(mo), d, now.Location())
	}},
	// "on March 14, 2025", "March 14th 2025"
	{regexp.MustCompile(`\b` + monthRE + `\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+` + yearRE + `\b`), func(m []string, now time.Time) (Span, bool) {
		d, _ := strconv.Atoi(m[2])
		y, _ := strconv.Atoi(m[3])
		return daySpan(y, months[m[1]], d, now.Location())
	}},
	// "14 March 2025", "the 14th of March 2025"
	{regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRE + `,?\s+` + yearRE + `\b`), func(m []string, now time.Time) (Span, bool) {
		d, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[3])
		return daySpan(y, months[m[2]], d, now.Location())
	}},
	// "in early March 2025", "March of 2025"
	{regexp.MustCompile(`\b` + partRE + monthRE + `\s+(?:of\s+)?` + yearRE + `\b`), func(m []string, now time.Time) (Span, bool) {
		y, _ := strconv.Atoi(m[3])
		return part(monthSpan(y, months[m[2]], now.Location()), m[1]), true
	}},
	// "in the spring of 2025", "summer 2024"
	{regexp.MustCompile(`\b` + partRE + `(?:the\s+)?` + seasonRE + `\s+(?:of\s+)?` + yearRE + `\b`), func(m []string, now time.Time) (Span, bool) {
		y, _ := strconv.Atoi(m[3])
		return part(seasonSpan(y, m[2], now.Location()), m[1]), true
	}},
	// "Q1 2025", "the first quarter of 2025"
	{regexp.MustCompile(`\b(?:q([1-4])|(first|second|third|fourth) quarter of)\s+` + yearRE + `\b`), func(m []string, now time.Time) (Span, bool) {
		q, _ := strconv.Atoi(m[1])
		if q == 0 {
			q = map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4}[m[2]]
		}
		y, _ := strconv.Atoi(m[3])
		start := time.Date(y, time.Month(3*q-2), 1, 0, 0, 0, 0, now.Location())
		return Span{Start: start, End: start.AddDate(0, 3, -1)}, true
	}},
	// "in 2024", "back in 2024", "early 2025", "during 2023"
	{regexp.MustCompile(`\b(?:(?:back\s+)?in|during|throughout|around|as of|(early|mid|late|the start of|the end of|the beginning of)[ -]+)\s*` + yearRE + `\b`), func(m []string, now time.Time) (Span, bool) {
		y, _ := strconv.Atoi(m[2])
		start := time.Date(y, 1, 1, 0, 0, 0, 0, now.Location())
		return part(Span{Start: start, End: start.AddDate(1, 0, -1)}, m[1]), true
	}},
	// "last spring", "this winter", "in the summer"
	{regexp.MustCompile(`\b(last|this|in the|in)\s+` + seasonRE + `\b`), func(m []string, now time.Time) (Span, bool) {
		return recentSeason(now, m[2], m[1] == "last"), true
	}},
	// "last March", "in May", "this January"
	{regexp.MustCompile(`\b(last|this|in|back in|during)\s+` + monthRE + `\b`), func(m []string, now time.Time) (Span, bool) {
		return recentMonth(now, months[m[2]], m[1] == "last"), true
	}},
	// "two weeks ago", "a couple of months ago", "3 years ago"
	{regexp.MustCompile(`\b` + numRE + `\s+` + unitRE + `\s+ago\b`), func(m []string, now time.Time) (Span, bool) {
		n, ok := numbers[m[1]]
		if !ok {
			n, _ = strconv.Atoi(m[1])
		}
		if n <= 0 || n > 200 {
			return Span{}, false
		}
		return ago(now, n, m[2]), true
	}},
	// "last year", "last month", "last week"
	{regexp.MustCompile(`\blast\s+(week|month|year)\b`), func(m []string, now time.Time) (Span, bool) {
		return ago(now, 1, m[1]), true
	}},
	// "last Tuesday"
	{regexp.MustCompile(`\blast\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`), func(m []string, now time.Time) (Span, bool) {
		d := day(now)
		back := (int(d.Weekday()) - int(weekdays[m[1]]) + 7) % 7
		if back == 0 {
			back = 7
		}
		d = d.AddDate(0, 0, -back)
		return Span{Start: d, End: d}, true
	}},
	// "the day before yesterday", "yesterday"
	{regexp.MustCompile(`\b(the day before yesterday|yesterday)\b`), func(m []string, now time.Time) (Span, bool) {
		back := 1
		if m[1] != "yesterday" {
			back = 2
		}
		d := day(now).AddDate(0, 0, -back)
		return Span{Start: d, End: d}, true
	}},
}

// Parse finds the first time phrase of text, in the order of the rules
// (a date before a month, a month before a year, absolute before
// relative), that is not a period running to today or a future one
// ("since March", "next spring").
func Parse(text string, now time.Time) (Span, bool) {
	low := asciiLower(text)
	for _, r := range rules {
		for _, loc := range r.re.FindAllStringSubmatchIndex(low, -1) {
			if blocked(low[:loc[0]]) {
				continue
			}
			m := make([]string, len(loc)/2)
			for i := range m {
				if loc[2*i] >= 0 {
					m[i] = low[loc[2*i]:loc[2*i+1]]
				}
			}
			s, ok := r.span(m, now)
			if !ok {
				continue
			}
			s.Phrase = strings.TrimSpace(strings.TrimRight(text[loc[0]:loc[1]], "?.!,; "))
			return s, true
		}
	}
	return Span{}, false
}

// asciiLower folds A to Z only, so every byte offset in the result is one
// in text (strings.ToLower may change a string's length).
func asciiLower(text string) string {
	b := []byte(text)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

var blockedRE = regexp.MustCompile(blockRE)

func blocked(before string) bool { return blockedRE.MatchString(before) }

func day(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

func daySpan(y int, m time.Month, d int, loc *time.Location) (Span, bool) {
	t := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if t.Month() != m || t.Day() != d || m < 1 || m > 12 {
		return Span{}, false // "February 30"
	}
	return Span{Start: t, End: t}, true
}

func monthSpan(y int, m time.Month, loc *time.Location) Span {
	start := time.Date(y, m, 1, 0, 0, 0, 0, loc)
	return Span{Start: start, End: start.AddDate(0, 1, -1)}
}

// seasonSpan is a meteorological season of the northern hemisphere;
// winter y runs from December y to February y+1.
func seasonSpan(y int, season string, loc *time.Location) Span {
	first := map[string]time.Month{"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}[season]
	start := time.Date(y, first, 1, 0, 0, 0, 0, loc)
	return Span{Start: start, End: start.AddDate(0, 3, -1)}
}

// part narrows a span to its first, middle or last third.
func part(s Span, which string) Span {
	days := int(s.End.Sub(s.Start).Hours()/24+0.5) + 1
	third := days / 3
	switch which {
	case "early", "the start of", "the beginning of":
		s.End = s.Start.AddDate(0, 0, third-1)
	case "mid":
		s.Start, s.End = s.Start.AddDate(0, 0, third), s.Start.AddDate(0, 0, 2*third-1)
	case "late", "the end of":
		s.Start = s.End.AddDate(0, 0, -(third - 1))
	}
	return s
}

// recentSeason is the latest season of that name that has begun by now
// ("this summer" in December is the summer just gone); "last" is the one
// before it when the latest one is still going on.
func recentSeason(now time.Time, season string, last bool) Span {
	d := day(now)
	for y := d.Year(); ; y-- {
		s := seasonSpan(y, season, d.Location())
		if s.Start.After(d) {
			continue
		}
		if last && !s.End.Before(d) {
			continue
		}
		return s
	}
}

// recentMonth is the latest month of that name that has begun by now;
// "last" skips the current one.
func recentMonth(now time.Time, m time.Month, last bool) Span {
	d := day(now)
	for y := d.Year(); ; y-- {
		s := monthSpan(y, m, d.Location())
		if s.Start.After(d) {
			continue
		}
		if last && !s.End.Before(d) {
			continue
		}
		return s
	}
}

// ago is the calendar week, month or year n units before now's, or the
// day n days before.
func ago(now time.Time, n int, unit string) Span {
	d := day(now)
	switch unit {
	case "day":
		t := d.AddDate(0, 0, -n)
		return Span{Start: t, End: t}
	case "week":
		monday := d.AddDate(0, 0, -((int(d.Weekday())+6)%7)-7*n)
		return Span{Start: monday, End: monday.AddDate(0, 0, 6)}
	case "month":
		first := time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, d.Location()).AddDate(0, -n, 0)
		return Span{Start: first, End: first.AddDate(0, 1, -1)}
	}
	first := time.Date(d.Year()-n, 1, 1, 0, 0, 0, 0, d.Location())
	return Span{Start: first, End: first.AddDate(1, 0, -1)}
}
