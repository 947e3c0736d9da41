package timephrase

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	// Asked on Wednesday 12 August 2026.
	now := time.Date(2026, 8, 12, 15, 4, 0, 0, time.UTC)
	for _, tc := range []struct {
		q, start, end, phrase, event string
	}{
		{q: "Who led the platform team in March 2025?", start: "2025-03-01", end: "2025-03-31", phrase: "March 2025"},
		{q: "what was the staging port in march of 2024", start: "2024-03-01", end: "2024-03-31", phrase: "march of 2024"},
		{q: "Which laptop did I use back in 2024?", start: "2024-01-01", end: "2024-12-31", phrase: "back in 2024"},
		{q: "What did we decide during 2023?", start: "2023-01-01", end: "2023-12-31", phrase: "during 2023"},
		{q: "What race times did I run in 2025?", start: "2025-01-01", end: "2025-12-31", phrase: "in 2025"},
		{q: "Where did we host the API in early 2025?", start: "2025-01-01", end: "2025-05-01", phrase: "early 2025"},
		{q: "who was on call in late 2024", start: "2024-09-01", end: "2024-12-31", phrase: "late 2024"},
		{q: "What did the roadmap say in mid 2025?", start: "2025-05-02", end: "2025-08-30", phrase: "mid 2025"},
		{q: "How often was I on call back in spring 2025?", start: "2025-03-01", end: "2025-05-31", phrase: "spring 2025"},
		{q: "What did we do in the summer of 2024?", start: "2024-06-01", end: "2024-08-31", phrase: "the summer of 2024"},
		{q: "Where did we ski in winter 2025?", start: "2025-12-01", end: "2026-02-28", phrase: "winter 2025"},
		{q: "What was the plan last spring?", start: "2026-03-01", end: "2026-05-31", phrase: "last spring"},
		{q: "Who coached the team last summer?", start: "2025-06-01", end: "2025-08-31", phrase: "last summer"},
		{q: "What did we do this spring?", start: "2026-03-01", end: "2026-05-31", phrase: "this spring"},
		{q: "What did we fix last autumn?", start: "2025-09-01", end: "2025-11-30", phrase: "last autumn"},
		{q: "What broke last fall?", start: "2025-09-01", end: "2025-11-30", phrase: "last fall"},
		{q: "Where was the cabin last winter?", start: "2025-12-01", end: "2026-02-28", phrase: "last winter"},
		{q: "What did I buy in May?", start: "2026-05-01", end: "2026-05-31", phrase: "in May"},
		{q: "What did I buy in September?", start: "2025-09-01", end: "2025-09-30", phrase: "in September"},
		{q: "What happened last March?", start: "2026-03-01", end: "2026-03-31", phrase: "last March"},
		{q: "What did we ship last August?", start: "2025-08-01", end: "2025-08-31", phrase: "last August"},
		{q: "What did I order two weeks ago?", start: "2026-07-27", end: "2026-08-02", phrase: "two weeks ago"},
		{q: "which mixer did I buy a couple of months ago", start: "2026-06-01", end: "2026-06-30", phrase: "a couple of months ago"},
		{q: "Where did I live 3 years ago?", start: "2023-01-01", end: "2023-12-31", phrase: "3 years ago"},
		{q: "What did we agree five days ago?", start: "2026-08-07", end: "2026-08-07", phrase: "five days ago"},
		{q: "What was my salary last year?", start: "2025-01-01", end: "2025-12-31", phrase: "last year"},
		{q: "What did I read last month?", start: "2026-07-01", end: "2026-07-31", phrase: "last month"},
		{q: "Who visited last week?", start: "2026-08-03", end: "2026-08-09", phrase: "last week"},
		{q: "What did I cook last Tuesday?", start: "2026-08-11", end: "2026-08-11", phrase: "last Tuesday"},
		{q: "What did I cook last Wednesday?", start: "2026-08-05", end: "2026-08-05", phrase: "last Wednesday"},
		{q: "What did I say yesterday?", start: "2026-08-11", end: "2026-08-11", phrase: "yesterday"},
		{q: "what did we decide the day before yesterday", start: "2026-08-10", end: "2026-08-10", phrase: "the day before yesterday"},
		{q: "What was the rate on 2025-03-14?", start: "2025-03-14", end: "2025-03-14", phrase: "on 2025-03-14"},
		{q: "Who owned the repo on March 14, 2025?", start: "2025-03-14", end: "2025-03-14", phrase: "March 14, 2025"},
		{q: "Who was CTO on 2 February 2024?", start: "2024-02-02", end: "2024-02-02", phrase: "2 February 2024"},
		{q: "What was the budget in Q1 2025?", start: "2025-01-01", end: "2025-03-31", phrase: "Q1 2025"},
		{q: "What was the budget in the third quarter of 2024?", start: "2024-07-01", end: "2024-09-30", phrase: "third quarter of 2024"},
		{q: "Where did we live before we moved to Berlin?", phrase: "before we moved to Berlin", event: "we moved to berlin"},
		{q: "Which bank did I use before I switched to Avanza?", phrase: "before I switched to Avanza", event: "i switched to avanza"},
	} {
		s, ok := Parse(tc.q, now)
		if !ok {
			t.Errorf("%q: no time phrase found", tc.q)
			continue
		}
		if got := s.Start.Format(time.DateOnly); tc.start != "" && got != tc.start {
			t.Errorf("%q: start %s, want %s", tc.q, got, tc.start)
		}
		if got := s.End.Format(time.DateOnly); tc.end != "" && got != tc.end {
			t.Errorf("%q: end %s, want %s", tc.q, got, tc.end)
		}
		if s.Phrase != tc.phrase || s.Event != tc.event {
			t.Errorf("%q: phrase %q event %q, want %q and %q", tc.q, s.Phrase, s.Event, tc.phrase, tc.event)
		}
	}
}

// Questions with no past time in them, or with a period that runs to
// today or into the future, or a number that only looks like a year.
func TestParseNone(t *testing.T) {
	now := time.Date(2026, 8, 12, 9, 0, 0, 0, time.UTC)
	for _, q := range []string{
		"Who leads the platform team?",
		"What's the cottage loan rate since this January's renegotiation?",
		"What will we do next spring?",
		"Which port does the 2025 Stockholm Marathon site use?",
		"What changed since March 2025?",
		"Do you need my OK before touching the live environment?",
		"What do I need to take before a restaurant meal?",
		"what's running at 192.168.1.30?",
		"What is PAY-2291 about?",
		"Are you allowed to send meeting invitations for me? You may.",
		"",
	} {
		if s, ok := Parse(q, now); ok {
			t.Errorf("%q: found %q (%s to %s), want none", q, s.Phrase, s.Start.Format(time.DateOnly), s.End.Format(time.DateOnly))
		}
	}
}

func TestSpanBeforeAndPast(t *testing.T) {
	now := time.Date(2026, 8, 12, 9, 0, 0, 0, time.UTC)
	s, _ := Parse("Where did we live before we moved to Berlin?", now)
	if s.Past(now) {
		t.Error("an undated event span reads as past")
	}
	b := s.Before(time.Date(2025, 4, 1, 13, 0, 0, 0, time.UTC))
	if !b.Start.IsZero() || b.End.Format(time.DateOnly) != "2025-03-31" || !b.Past(now) {
		t.Errorf("before 2025-04-01: %v to %v", b.Start, b.End)
	}
	this, _ := Parse("What did we do this summer?", now)
	if this.Past(now) {
		t.Errorf("this summer (%v to %v) reads as past on %v", this.Start, this.End, now)
	}
}

// The parser must not panic or loop on any input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"in March 2025", "before we moved to Berlin", "31 February 2025", "99999 years ago", "q4 2099", "last"} {
		f.Add(s)
	}
	now := time.Date(2026, 8, 12, 9, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		if sp, ok := Parse(s, now); ok && sp.Event == "" && sp.End.Before(sp.Start) {
			t.Errorf("%q: span ends %v before it starts %v", s, sp.End, sp.Start)
		}
	})
}
