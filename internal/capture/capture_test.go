package capture

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		text string
		want float64
	}{
		{"We decided to move the customer records to Postgres", Decision},
		{"yes, send it", SmallTalk}, // consent without its question
		{"ok thanks", SmallTalk},
		{"Always run the linter before committing", Decision},
		{"Priya prefers code reviews before noon", Personal},
		{"My daughter's birthday is on 3 May", Personal},
		{"The staging database runs on port 5433", Machine},
		{"Python 3.12 is installed in ~/.venvs/main", Machine},
		{"Set GITHUB_TOKEN in the shell profile", Machine},
		{"The Q3 report is due to the client in September", Statement},
		{"thanks!", SmallTalk},
		{"hello there", SmallTalk},
		{"...", SmallTalk},
	} {
		if got := Classify(tc.text); got != tc.want {
			t.Errorf("Classify(%q) = %v (%s), want %v (%s)", tc.text, got, TierName(got), tc.want, TierName(tc.want))
		}
	}
}

func TestSplitMarkdown(t *testing.T) {
	md := `---
name: build
description: how the build works
type: project
---
# Project notes

- Use ` + "`make test`" + ` before pushing.
- [ ] **Never** force-push to main.
* The CI runs on 2 cores. It has a 90 minute limit.

The staging host is staging.example.org. Deploys go through the
release branch; hotfixes go straight to main.

` + "```sh\nmake secret-thing\n```" + `
<!-- a note to self -->
| a | b |
|---|---|
- [Build notes](build.md) — how the build works
`
	got := SplitMarkdown(md, 200)
	want := []string{
		"Use make test before pushing.",
		"Never force-push to main.",
		"The CI runs on 2 cores.", "It has a 90 minute limit.",
		"The staging host is staging.example.org.", "Deploys go through the release branch; hotfixes go straight to main.",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

func TestSplitLong(t *testing.T) {
	long := strings.Repeat("word ", 100) + "end; " + strings.Repeat("more ", 50)
	for _, c := range SplitMarkdown(long, 200) {
		if n := len([]rune(c)); n > 200 || n == 0 {
			t.Fatalf("claim of %d characters: %q", n, c)
		}
	}
	if got := len(strings.Fields(strings.Join(SplitMarkdown(long, 200), " "))); got != 151 {
		t.Fatalf("%d words after splitting, want all 151", got)
	}
}

func TestFromTurn(t *testing.T) {
	if m := FromTurn(Turn{Assistant: "Anything else?", User: "  "}, 0); len(m) != 0 {
		t.Fatalf("empty turn stored %v", m)
	}
	m := FromTurn(Turn{Assistant: "I drafted the reply. Want me to send this reply to the client now?", User: "OK"}, 0)
	if len(m) != 1 || m[0].Importance != Decision || !strings.Contains(m[0].Text, "Want me to send this reply to the client now?") || !strings.Contains(m[0].Text, `"OK"`) {
		t.Fatalf("consent: %+v", m)
	}
	m = FromTurn(Turn{Assistant: "Done.", User: "thanks"}, 0)
	if len(m) != 1 || m[0].Importance != SmallTalk {
		t.Fatalf("small talk: %+v", m)
	}
	m = FromTurn(Turn{Assistant: "Which port?", User: "It runs on port 8080. I prefer tabs over spaces."}, 0)
	if len(m) != 2 || m[0].Importance != Machine || m[1].Importance != Personal {
		t.Fatalf("statements: %+v", m)
	}
	// A consent with no question before it says nothing.
	m = FromTurn(Turn{Assistant: "Deployed.", User: "ok"}, 0)
	if len(m) != 0 {
		t.Fatalf("consent without a question: %+v", m)
	}
	long := FromTurn(Turn{Assistant: "Shall I send the " + strings.Repeat("very ", 80) + "long question?", User: "yes"}, 200)
	if len(long) != 1 || len([]rune(long[0].Text)) > 200 {
		t.Fatalf("long consent: %+v", long)
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("# h\n- a b c\n\nSome text. More text.", 200)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 20 || max > 2000 {
			max = 200
		}
		for _, c := range SplitMarkdown(s, max) {
			if len([]rune(c)) > max || strings.ContainsAny(c, "\n") {
				t.Fatalf("bad claim %q (max %d)", c, max)
			}
		}
	})
}
