package reference

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDigestMatchesCommittedFile keeps facts.jsonl.gz and facts.sha256
// (both written by `make facts`) in step: a hand edit of either fails.
func TestDigestMatchesCommittedFile(t *testing.T) {
	want, err := os.ReadFile("facts.sha256")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Digest()
	if err != nil {
		t.Fatal(err)
	}
	if got != strings.TrimSpace(string(want)) {
		t.Fatalf("facts.jsonl.gz has digest %s, facts.sha256 says %s: rebuild with `make facts`", got, want)
	}
}

// lockedPackages reads the names and versions the generator pins.
func lockedPackages(t *testing.T) map[string]string {
	f, err := os.Open("gen/packages.lock")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 3 && !strings.HasPrefix(fs[0], "#") {
			out[fs[0]] = fs[1]
		}
	}
	return out
}

var sourceRE = regexp.MustCompile(`^Debian (\S+) (\S+), `)

func TestEveryFactIsOneSourcedClaim(t *testing.T) {
	facts, err := Facts()
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) < 6000 {
		t.Fatalf("%d reference facts, want at least 6000", len(facts))
	}
	pins := lockedPackages(t)
	seen := map[string]bool{}
	topics := map[string]int{}
	for i, f := range facts {
		switch {
		case f.Text == "" || !strings.HasSuffix(f.Text, "."):
			t.Errorf("fact %d is not a sentence: %q", i, f.Text)
		case strings.ContainsAny(f.Text, "\n\t"):
			t.Errorf("fact %d spans lines: %q", i, f.Text)
		case len(f.Text) > 300:
			t.Errorf("fact %d is %d bytes: %q", i, len(f.Text), f.Text)
		case seen[f.Text]:
			t.Errorf("fact %d repeats: %q", i, f.Text)
		case f.Topic == "":
			t.Errorf("fact %d has no topic", i)
		}
		seen[f.Text] = true
		topics[f.Topic]++
		m := sourceRE.FindStringSubmatch(f.Source)
		if m == nil {
			t.Errorf("fact %d source %q does not name a Debian package", i, f.Source)
			continue
		}
		if pins[m[1]] != m[2] {
			t.Errorf("fact %d cites %s %s, but the lock pins %q", i, m[1], m[2], pins[m[1]])
		}
	}
	for _, topic := range []string{"ports", "protocols", "mime", "countries", "languages", "currencies", "scripts",
		"timezones", "pci", "usb", "errno", "signals", "syscalls", "unicode", "commands"} {
		if topics[topic] == 0 {
			t.Errorf("no facts on %s", topic)
		}
	}
}

// TestKnownFacts checks a few facts anyone can confirm against the files
// they cite, so a generator bug that garbles values is caught.
func TestKnownFacts(t *testing.T) {
	facts, err := Facts()
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	for _, f := range facts {
		text[f.Text] = f.Source
	}
	for claim, source := range map[string]string{
		"Port 22/tcp is registered to the ssh service (SSH Remote Login Protocol).":                                                  "Debian netbase 6.4, /etc/services",
		"Linux errno 13 means Permission denied (EACCES).":                                                                           "Debian linux-libc-dev 6.1.192-3, /usr/include/asm-generic/errno-base.h",
		"On Linux x86-64, the execve system call is number 59.":                                                                      "Debian linux-libc-dev 6.1.192-3, /usr/include/x86_64-linux-gnu/asm/unistd_64.h",
		"The Unicode block Basic Latin spans code points U+0000 to U+007F.":                                                          "Debian unicode-data 15.0.0-1, /usr/share/unicode/Blocks.txt",
		"In 2026 the time zone Asia/Tokyo (Tokyo, Japan) is at UTC+09:00 (JST) all year.":                                            "Debian tzdata 2026f-0+deb12u1, /usr/share/zoneinfo/Asia/Tokyo",
		"PCI vendor ID 8086 belongs to Intel Corporation.":                                                                           "Debian pci.ids 0.0~2023.04.11-1, /usr/share/misc/pci.ids",
		"The ls command lists directory contents.":                                                                                   "Debian coreutils 9.1-1, ls(1) manual page",
		"Files with the extension .pdf have the MIME type application/pdf.":                                                          "Debian media-types 10.0.0, /etc/mime.types",
		"The ISO 3166-1 country code of Germany is DE (alpha-3 DEU, numeric 276); its official name is Federal Republic of Germany.": "Debian iso-codes 4.15.0-1, /usr/share/iso-codes/json/iso_3166-1.json",
	} {
		if got, ok := text[claim]; !ok {
			t.Errorf("missing: %q", claim)
		} else if got != source {
			t.Errorf("%q cites %q, want %q", claim, got, source)
		}
	}
}

func TestQuestionsNameRealFacts(t *testing.T) {
	facts, err := Facts()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range facts {
		have[f.Text] = true
	}
	if len(Questions) != 20 {
		t.Errorf("%d self-test questions, want 20", len(Questions))
	}
	for _, q := range Questions {
		if !have[q.Fact] {
			t.Errorf("question %q expects a fact that is not in the pack: %q", q.Ask, q.Fact)
		}
	}
}
