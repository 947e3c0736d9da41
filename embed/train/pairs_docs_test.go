package train

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// writeTestFile writes content at dir/rel (gzipped when rel ends in .gz).
func writeTestFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	b := []byte(content)
	if filepath.Ext(rel) == ".gz" {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		b = buf.Bytes()
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func minedPairs(t *testing.T, mine func(string, func(a, b string)) error, dir string) [][2]string {
	t.Helper()
	var got [][2]string
	if err := mine(dir, func(a, b string) { got = append(got, [2]string{a, b}) }); err != nil {
		t.Fatal(err)
	}
	return got
}

func wantPairs(t *testing.T, got, want [][2]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("pairs %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pair %d is %q, want %q", i, got[i], want[i])
		}
	}
}

func TestDebianFAQPairsJoinAWrappedQuestion(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, dir, "usr/share/doc/debian/FAQ/debian-faq.en.txt.gz",
		"1. Definitions\n\n1.1. What is Debian?\n\n    A free operating\n    system.\n\n1.2. How can I reach the hardware, without\ncompromising security?\n\n    Add the user to the group.\n")
	wantPairs(t, minedPairs(t, debianFAQPairs, dir), [][2]string{
		{"What is Debian?", "A free operating system."},
		{"How can I reach the hardware, without compromising security?", "Add the user to the group."},
	})
}

func TestPerlFAQPairsSkipCode(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, dir, "usr/share/perl/5.36.0/pod/perlfaq4.pod",
		"=head1 NAME\n\nperlfaq4 - Data\n\n=head2 How do I round a number?\n\nUse C<sprintf> to round.\n\n    printf(\"%.3f\", 3.1415);\n\nIt rounds half to even.\n\n=head1 AUTHOR\n\nSomeone.\n")
	wantPairs(t, minedPairs(t, perlFAQPairs, dir), [][2]string{
		{"How do I round a number?", "Use sprintf to round. It rounds half to even."},
	})
}

func TestPythonFAQPairsTakeQuestionHeadings(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, dir, "usr/share/doc/python3.11/html/_sources/faq/general.rst.txt",
		"General Information\n===================\n\nWhat is Python?\n---------------\n\nPython is a language; see :ref:`tutorial-index`.\n\n.. note::\n\n   Skipped.\n\nIt runs on ``Linux``.\n\nHistory\n-------\n\nNot a question.\n")
	wantPairs(t, minedPairs(t, pythonFAQPairs, dir), [][2]string{
		{"What is Python?", "Python is a language; see tutorial-index. It runs on Linux."},
	})
}

func TestRoffFAQPairs(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, dir, "usr/share/man/man7/gitfaq.7.gz",
		".SH \"CONFIGURATION\"\n.PP\nWhat should I put in \\fBuser\\&.name\\fR?\n.RS 4\nYour personal name\\&.\n.sp\nNot a login\\&.\n.RE\n.PP\nNo question here\n.RS 4\nText.\n.RE\n")
	wantPairs(t, minedPairs(t, roffFAQPairs, dir), [][2]string{
		{"What should I put in user.name?", "Your personal name. Not a login."},
	})
}

func TestMailSubjectPairsDropQuotesAndSignature(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, dir, "package/spam-assassin/data/easy-ham-1/00001.txt",
		"From: a@b\nSubject: Re: [SAtalk] disk full on the mail server\n\nOn Mon, Bob wrote:\n> old text\nWe moved the spool to a bigger disk.\n-- \nBob\n")
	writeTestFile(t, dir, "package/spam-assassin/data/easy-ham-2/00002.txt", "From: c@d\nContent-Type: text/html\nSubject: html only\n\n<p>x</p>\n")
	writeTestFile(t, dir, "package/spam-assassin/data/hard-ham-1/00003.txt", "no headers at all")
	writeTestFile(t, dir, "package/spam-assassin/data/spam-1/00001.txt", "Subject: buy now\n\nCheap.\n")
	wantPairs(t, minedPairs(t, mailSubjectPairs, dir), [][2]string{
		{"disk full on the mail server", "We moved the spool to a bigger disk."},
	})
}

func TestDebianNamePairsStripPackagingAffixes(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, dir, "Translation-en",
		"Package: libredis-perl\nDescription-md5: x\nDescription-en: Perl binding for Redis database\n Long.\n\nPackage: gnuradio-iqbalance\nDescription-en: two words\n Long.\n\nPackage: pgbouncer\nDescription-en: lightweight connection pooler for PostgreSQL\n Long.\n")
	wantPairs(t, minedPairs(t, debianNamePairs, dir), [][2]string{
		{"redis", "Perl binding for Redis database"},
		{"pgbouncer", "lightweight connection pooler for PostgreSQL"},
	})
}

func TestWordnetCommonDefinitionPairsKeepAttestedSensesOnly(t *testing.T) {
	dir := t.TempDir()
	wn := "usr/share/wordnet/"
	// "bank" has two senses; only the first is sense-tagged.
	writeTestFile(t, dir, wn+"index.noun", "  1 license text\nbank n 2 1 @ 2 1 00000001 00000002  \n")
	writeTestFile(t, dir, wn+"data.noun", "  1 license text\n00000001 06 n 02 bank 0 depository_financial_institution 0 000 | a financial institution; \"he cashed a check at the bank\"  \n00000002 17 n 01 bank 1 000 | sloping land beside a body of water  \n")
	for _, pos := range []string{"verb", "adj", "adv"} {
		writeTestFile(t, dir, wn+"index."+pos, "")
		writeTestFile(t, dir, wn+"data."+pos, "")
	}
	wantPairs(t, minedPairs(t, wordnetCommonDefinitionPairs, dir), [][2]string{
		{"bank, depository financial institution", "a financial institution"},
	})
}
