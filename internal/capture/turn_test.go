package capture

import (
	"strings"
	"testing"
)

// TestConsentQuestion: realistic assistant turns answered with a bare
// consent, and the decision each must store ("" = nothing at all). The
// question is kept whole across times, file names, versions,
// abbreviations, URLs and code spans.
func TestConsentQuestion(t *testing.T) {
	for i, tc := range []struct {
		assistant, user, want string
	}{
		{"I checked the toolchain. Want me to bump Go to 1.26.1 in go.mod?", "yes",
			`The user agreed to "Want me to bump Go to 1.26.1 in go.mod?" (answered "yes")`},
		{"There are two trains. Shall I book the 07:40 train to Utrecht for Thursday?", "ok",
			`The user agreed to "Shall I book the 07:40 train to Utrecht for Thursday?" (answered "ok")`},
		{"The fix is in. Should I open https://github.com/acme/api/pull/42?tab=files in the browser?", "sure",
			`The user agreed to "Should I open https://github.com/acme/api/pull/42?tab=files in the browser?" (answered "sure")`},
		{"Tests pass locally. Should I run `go test ./... -run TestX.Sub` before pushing?", "go ahead",
			`The user agreed to "Should I run go test ./... -run TestX.Sub before pushing?" (answered "go ahead")`},
		{"I spoke to Dr. Jansen's office. Do you want me to move the appointment to 3 p.m. on Friday?", "yes please",
			`The user agreed to "Do you want me to move the appointment to 3 p.m. on Friday?" (answered "yes please")`},
		{"The draft mentions costs, e.g. hosting and support. Shall I send it to Anna?", "send it",
			`The user agreed to "Shall I send it to Anna?" (answered "send it")`},
		{"Should I use e.g. Postgres 16.2 for the new service?", "yes",
			`The user agreed to "Should I use e.g. Postgres 16.2 for the new service?" (answered "yes")`},
		{"The config lives in ~/.config/app/settings.toml. Want me to set `log_level: debug` there?", "ok",
			`The user agreed to "Want me to set log_level: debug there?" (answered "ok")`},
		{"Plan:\n1. Rename the table.\n2. Backfill.\nOK to start with step 1 now?", "ok",
			`The user agreed to "OK to start with step 1 now?" (answered "ok")`},
		{"I found the invoice (No. 2026-114, approx. €1,200). Should I pay it from the business account?", "approved",
			`The user agreed to "Should I pay it from the business account?" (answered "approved")`},
		{"The meeting moved to 10:30. Would you like me to tell J. R. Smith about the change?", "yes",
			`The user agreed to "Would you like me to tell J. R. Smith about the change?" (answered "yes")`},
		{"**Heads-up:** the cert expires on 2026-12-24. Shall I renew it with `certbot renew --dry-run` first?", "do it",
			`The user agreed to "Shall I renew it with certbot renew --dry-run first?" (answered "do it")`},
		{"I can also add a test for the U.S. date format - want me to?", "yes",
			`The user agreed to "I can also add a test for the U.S. date format - want me to?" (answered "yes")`},
		{"Version 2.0.0-rc.1 is tagged. Should I publish it to npm as `@acme/ui@2.0.0-rc.1`?", "lgtm",
			`The user agreed to "Should I publish it to npm as @acme/ui@2.0.0-rc.1?" (answered "lgtm")`},
		{"Done. The report is at reports/q3.final.pdf. Should I email it to finance@acme.example?", "yes",
			`The user agreed to "Should I email it to finance@acme.example?" (answered "yes")`},
		{"Is it OK if I delete the old branches (feature/x.y and fix/1.2)?", "fine",
			`The user agreed to "Is it OK if I delete the old branches (feature/x.y and fix/1.2)?" (answered "fine")`},
		{"I read the thread... Should we go with the St. Louis office for the offsite?", "agreed",
			`The user agreed to "Should we go with the St. Louis office for the offsite?" (answered "agreed")`},
		{"Does 9.30 a.m. work for the call with Mr. Okafor?", "yes",
			`The user agreed to "Does 9.30 a.m. work for the call with Mr. Okafor?" (answered "yes")`},
		{"The price rose by 3.5% vs. last year. Do you still want to renew the plan?", "yes",
			`The user agreed to "Do you still want to renew the plan?" (answered "yes")`},
		{"Want me to set the alarm for 06:15 tomorrow?\n\n(Your usual is 06:30.)", "ok",
			`The user agreed to "Want me to set the alarm for 06:15 tomorrow?" (answered "ok")`},
		{"Can I restart nginx on staging.example.org:8443 now?", "go for it",
			`The user agreed to "Can I restart nginx on staging.example.org:8443 now?" (answered "go for it")`},
		{"I'll use the EU region. Sound good to you?", "sounds good",
			`The user agreed to "Sound good to you?" (answered "sounds good")`},
		{"Shall I book the table at 19:00 for\u202e four?", "yes",
			`The user agreed to "Shall I book the table at 19:00 for four?" (answered "yes")`},
		{"Should I \x1b[31mdelete\x1b[0m the cache in /tmp/build.cache?", "yes",
			`The user agreed to "Should I delete the cache in /tmp/build.cache?" (answered "yes")`},

		// Not a proposal: a consent to these says nothing, and nothing is
		// stored.
		{"Deployed.", "ok", ""},
		{"Anything else?", "ok", ""},
		{"Is there anything else I can help you with?", "yes", ""},
		{"Which one do you prefer, A or B?", "ok", ""},
		{"Done?", "yes", ""},
		{"Does that make sense?", "yes", ""},
		{"All set. Any questions?", "ok", ""},
		{"", "ok", ""},

		// A thanks is small talk, never consent.
		{"Want me to push the branch?", "ok thanks", "ok thanks"},
		{"Should I archive the old invoices?", "great, thank you!", "great, thank you!"},
	} {
		got := FromTurn(Turn{Assistant: tc.assistant, User: tc.user}, MaxChars)
		switch {
		case tc.want == "" && len(got) != 0:
			t.Errorf("%d: %q / %q stored %+v, want nothing", i, tc.assistant, tc.user, got)
		case tc.want == "":
		case len(got) != 1 || got[0].Text != tc.want:
			t.Errorf("%d: %q / %q\n got %+v\nwant %q", i, tc.assistant, tc.user, got, tc.want)
		case strings.HasPrefix(tc.want, "The user agreed") && got[0].Importance != Decision:
			t.Errorf("%d: %q stored at %v, want %v", i, tc.want, got[0].Importance, Decision)
		case !strings.HasPrefix(tc.want, "The user agreed") && got[0].Importance != SmallTalk:
			t.Errorf("%d: %q stored at %v (%s), want small talk", i, tc.want, got[0].Importance, got[0].Tier)
		}
	}
}

// TestSentences: the segmentation itself, on the cases that used to cut a
// sentence short.
func TestSentences(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Bump Go to 1.26.1 in go.mod. Then tag it.", []string{"Bump Go to 1.26.1 in go.mod.", "Then tag it."}},
		{"The 07:40 train. It is late.", []string{"The 07:40 train.", "It is late."}},
		{"See https://example.org/a.b?c=1. Next!", []string{"See https://example.org/a.b?c=1.", "Next!"}},
		{"Run `a. B? c.` now. Done.", []string{"Run `a. B? c.` now.", "Done."}},
		{"Use e.g. Go. Or i.e. Rust.", []string{"Use e.g. Go.", "Or i.e. Rust."}},
		{"Ask Dr. Who. And Prof. X.", []string{"Ask Dr. Who.", "And Prof. X."}},
		{"He said \"go.\" Then left.", []string{"He said \"go.\"", "Then left."}},
		{"Wait... and then? Yes!", []string{"Wait... and then?", "Yes!"}},
		{"Made in the U.S.A. Shipped fast.", []string{"Made in the U.S.A. Shipped fast."}},
		{"Apples, pears, etc. The rest is fine.", []string{"Apples, pears, etc.", "The rest is fine."}},
		{"", nil},
	} {
		got := Sentences(tc.in)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Sentences(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestCleanText: escapes go whole, controls and bidi overrides go, text
// and newlines stay.
func TestCleanText(t *testing.T) {
	for in, want := range map[string]string{
		"red \x1b[31mtext\x1b[0m":         "red text",
		"title\x1b]0;pwned\x07 here":      "title here",
		"a\x00b\x07c\x7fd\u0085e":         "abcde",
		"abc\u202edcba\u2066x\u2069":      "abcdcbax",
		"zero\u200bwidth\ufeff":           "zerowidth",
		"tab\there\r\nnext":               "tab here \nnext",
		"family 👩\u200d👩\u200d👧 emoji ok": "family 👩\u200d👩\u200d👧 emoji ok",
	} {
		if got := CleanText(in); got != want {
			t.Errorf("CleanText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTurnControlCharacters: a turn with escapes stores none of them.
func TestTurnControlCharacters(t *testing.T) {
	got := FromTurn(Turn{User: "My name is \x1b[2J\x1b[HPriya\x07 and I prefer tea\u202e."}, MaxChars)
	if len(got) != 1 || got[0].Text != "My name is Priya and I prefer tea." {
		t.Fatalf("stored %+v", got)
	}
}
