package main

import (
	"testing"
	"time"
)

func TestThirdPerson(t *testing.T) {
	for in, want := range map[string]string{
		"list": "lists", "copy": "copies", "display": "displays", "search": "searches",
		"wash": "washes", "fix": "fixes", "do": "does", "compress": "compresses",
	} {
		if got := thirdPerson(in); got != want {
			t.Errorf("thirdPerson(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPredicate(t *testing.T) {
	for _, c := range []struct{ cmd, desc, want string }{
		{"ls", "list directory contents", "lists directory contents"},
		{"gzip", "compress or expand files", "compresses or expands files"},
		{"cat", "concatenate files and print on the standard output", "concatenates files and prints on the standard output"},
		{"base32", "base32 encode/decode data and print to standard output", "encodes/decodes data and prints to standard output"},
		{"git", "the stupid content tracker", "is the stupid content tracker"},
		{"ssh-keygen", "OpenSSH authentication key utility", "is the OpenSSH authentication key utility"},
		{"mkdir", "creates directories", "creates directories"},
		{"sort", "sort lines of text files", "sorts lines of text files"},
		{"devlink", "Devlink tool", "is the Devlink tool"},
		{"tunnel", "create, change, delete tunnels", "creates, changes, deletes tunnels"},
	} {
		if got := predicate(c.cmd, c.desc); got != c.want {
			t.Errorf("predicate(%q) = %q, want %q", c.desc, got, c.want)
		}
	}
}

func TestNameSection(t *testing.T) {
	man := ".TH LS 1\n.SH NAME\nls \\- list directory contents\n.SH SYNOPSIS\n.B ls\n"
	if names, desc := nameSection(man); len(names) != 1 || names[0] != "ls" || desc != "list directory contents" {
		t.Errorf("man(7): %q %q", names, desc)
	}
	mdoc := ".Dd x\n.Sh NAME\n.Nm ssh-keygen\n.Nd OpenSSH authentication key utility\n.Sh SYNOPSIS\n"
	if names, desc := nameSection(mdoc); len(names) != 1 || names[0] != "ssh-keygen" || desc != "OpenSSH authentication key utility" {
		t.Errorf("mdoc(7): %q %q", names, desc)
	}
	quoted := ".SH \"NAME\"\ngit-add \\- Add file contents to the index\n.SH \"SYNOPSIS\"\n"
	if _, desc := nameSection(quoted); desc != "Add file contents to the index" {
		t.Errorf("quoted heading: %q", desc)
	}
}

func TestOffsets(t *testing.T) {
	if got := utcOffset(-(3*3600 + 30*60)); got != "UTC-03:30" {
		t.Errorf("utcOffset = %q", got)
	}
	if got := offsetsIn(time.FixedZone("JST", 9*3600), 2026); got != "UTC+09:00 (JST) all year" {
		t.Errorf("fixed zone: %q", got)
	}
	// A zone with a daylight saving rule, read from a POSIX TZ string
	// embedded in a minimal TZif file rather than from this machine.
	loc, err := time.LoadLocationFromTZData("Test/Berlin", tzifWithFooter("CET-1CEST,M3.5.0,M10.5.0/3"))
	if err != nil {
		t.Fatal(err)
	}
	want := "UTC+01:00 (CET) in standard time and UTC+02:00 (CEST) during daylight saving time"
	if got := offsetsIn(loc, 2026); got != want {
		t.Errorf("rule zone: %q, want %q", got, want)
	}
}

// tzifWithFooter builds a version-2 TZif file with no transitions and one
// local time type, whose footer TZ string gives the rules.
func tzifWithFooter(tz string) []byte {
	header := func(version byte) []byte {
		h := make([]byte, 44)
		copy(h, "TZif")
		h[4] = version
		// counts: isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
		h[20+3*4+3] = 0
		h[20+4*4+3] = 1 // typecnt
		h[20+5*4+3] = 4 // charcnt
		return h
	}
	body := []byte{0, 0, 0x0e, 0x10, 0, 0, 'C', 'E', 'T', 0} // utoff 3600, isdst 0, idx 0, "CET\0"
	var b []byte
	b = append(b, header('2')...)
	b = append(b, body...)
	b = append(b, header('2')...)
	b = append(b, body...)
	b = append(b, '\n')
	b = append(b, tz...)
	b = append(b, '\n')
	return b
}
