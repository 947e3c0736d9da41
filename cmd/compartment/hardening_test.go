package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/compartment/compartment/internal/vault"
)

// hasControl reports a byte a terminal would act on, other than the
// newlines that end the CLI's own lines.
func hasControl(s string) bool {
	for _, c := range []byte(s) {
		if (c < 0x20 && c != '\n') || c == 0x7f {
			return true
		}
	}
	return strings.Contains(s, "\u009b") || strings.Contains(s, "\u202e")
}

// TestRecalledTextIsInert: text and source holding terminal escapes are
// shown escaped by recent, search, get and relations, and exact in --json.
// Before, `recent` printed ESC ] 0 ; … BEL raw and set the terminal title.
func TestRecalledTextIsInert(t *testing.T) {
	c := newMemCLI(t)
	text := "the deploy key is \x1b]0;pwned\x07 rotated \x1b[2J monthly \u202eexe"
	source := "from \x1b[31mchat\x1b[0m"
	var r vault.StoreResult
	c.json(&r, "store", text, "--source", source, "--tag", "ops")
	if !r.Stored {
		t.Fatalf("store: %+v", r)
	}
	c.ok("link", "Max\x1b[2J", "works_at", "Northwind\x07", "--src", r.ID)
	for _, args := range [][]string{{"recent"}, {"search", "deploy key rotated"}, {"get", r.ID}, {"relations", "--entity", "Northwind\x07"}} {
		out := c.ok(args...)
		if hasControl(out) {
			t.Errorf("%s printed a control character: %q", args[0], out)
		}
		if !strings.Contains(out, `\x1b`) && !strings.Contains(out, `\x07`) {
			t.Errorf("%s did not show the escapes: %q", args[0], out)
		}
	}
	var got vault.Record
	c.json(&got, "get", r.ID)
	if got.Text != text || got.Source != source {
		t.Fatalf("--json changed the text: %q / %q", got.Text, got.Source)
	}
}

// TestBadInputRefusedByTheCLI: each is refused with one line and a
// non-zero status, and nothing changes. Counted in the closing note.
func TestBadInputRefusedByTheCLI(t *testing.T) {
	c := newMemCLI(t)
	cases := [][]string{
		{"store", "nan importance", "--source", "s", "--importance", "NaN"},
		{"store", "inf importance", "--source", "s", "--importance", "+Inf"},
		{"store", "inf importance", "--source", "s", "--importance", "-Inf"},
		{"store", "long source", "--source", strings.Repeat("x", 100<<10)},
		{"store", "look-alike", "--source", "s", "--namespace", "PACKS/x"},
		{"store", "look-alike", "--source", "s", "--namespace", "Packs/x"},
		{"store", "look-alike", "--source", "s", "--namespace", "MAIN"},
		{"store", "reserved", "--source", "s", "--namespace", "packs/x"},
		{"config", "set", "model", "../../x"},
		{"config", "set", "model", "not-installed-model"},
		{"import", "/dev/zero"},
	}
	for _, args := range cases {
		_, errOut, code := c.run(args...)
		if code == 0 {
			t.Errorf("%s: accepted", strings.Join(args[:min(len(args), 4)], " "))
			continue
		}
		if lines := strings.Count(strings.TrimSpace(errOut), "\n"); lines > 1 || strings.Contains(errOut, "0x") || strings.Contains(errOut, "&{") {
			t.Errorf("%s: not one clear sentence: %q", args[0], errOut)
		}
	}
	var recent []vault.Record
	c.json(&recent, "recent")
	if len(recent) != 0 {
		t.Fatalf("%d memories stored by refused input", len(recent))
	}
	if out := strings.TrimSpace(c.ok("config", "get", "model")); out != "" {
		t.Fatalf("model setting changed to %q", out)
	}
}

// TestImportFromPipes: import reads /dev/stdin and a process substitution
// as streams (the line counter used to drain them first, importing 0
// lines and exiting 0), and keeps the importer as author.
func TestImportFromPipes(t *testing.T) {
	c := newMemCLI(t)
	file := filepath.Join(c.dir, "in.jsonl")
	lines := `{"text":"first piped fact","caller":"admin"}
{"text":"second piped fact"}
`
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(c.bin, "import", "/dev/stdin", "--json")
	cmd.Env = c.env(memCLIPass)
	in, _ := os.Open(file)
	defer in.Close()
	cmd.Stdin = in
	out, err := cmd.Output()
	var res vault.ImportResult
	if err != nil || json.Unmarshal(out, &res) != nil || res.Stored != 2 {
		t.Fatalf("import /dev/stdin: %s %v", out, err)
	}
	if _, err := exec.LookPath("bash"); err == nil {
		sub := exec.Command("bash", "-c", `"$BIN" import <(cat "$F"; echo '{"text":"third piped fact"}') --json`)
		sub.Env = append(c.env(memCLIPass), "BIN="+c.bin, "F="+file)
		out, err := sub.Output()
		if err != nil || json.Unmarshal(out, &res) != nil || res.Stored != 1 || res.Skipped != 2 {
			t.Fatalf("import <(...): %s %v", out, err)
		}
	}
	var recent []vault.Record
	c.json(&recent, "recent")
	for _, r := range recent {
		if r.Caller != "user" {
			t.Errorf("%q: author %q, want the importer", r.Text, r.Caller)
		}
	}
	if len(recent) != 3 {
		t.Fatalf("%d memories, want 3", len(recent))
	}
}

// TestRollbackRefusedByTheCLI: a vault replaced by an older copy of itself
// opened silently; now every command refuses it with both states named,
// until --accept-rollback takes it once.
func TestRollbackRefusedByTheCLI(t *testing.T) {
	c := newMemCLI(t)
	c.store("the first fact")
	backup, err := os.ReadFile(c.vault)
	if err != nil {
		t.Fatal(err)
	}
	c.store("the second fact")
	tmp := c.vault + ".restore"
	if err := os.WriteFile(tmp, backup, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, c.vault); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"recent"}, {"search", "fact"}, {"store", "a third fact", "--source", "s"}, {"status"}} {
		msg := c.fails(args...)
		if !strings.Contains(msg, "older copy") || !strings.Contains(msg, "--accept-rollback") || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
			t.Errorf("%s on a rolled-back vault: %q", args[0], msg)
		}
	}
	out := c.ok("--accept-rollback", "recent")
	if !strings.Contains(out, "the first fact") || strings.Contains(out, "the second fact") {
		t.Fatalf("accepted copy: %q", out)
	}
	c.ok("recent")
}

// TestVerifyReportsTornTail: status reported a crash-torn tail that
// verify said nothing about; verify now names it too.
func TestVerifyReportsTornTail(t *testing.T) {
	c := newMemCLI(t)
	c.store("a fact before the crash")
	f, err := os.OpenFile(c.vault, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0x50, 0, 0}) // fewer than 8 bytes: a torn frame header
	f.Close()
	out := c.ok("verify")
	if !strings.Contains(out, "torn tail") || !strings.Contains(out, "3 bytes") {
		t.Fatalf("verify output does not report the torn tail:\n%s", out)
	}
	var rep vault.FileCheck
	c.json(&rep, "verify")
	if rep.File.Torn == nil || rep.File.Torn.Bytes != 3 {
		t.Fatalf("verify --json: torn %+v", rep.File.Torn)
	}
}

// TestReadOnlyMediaNoSweepError: read commands on a vault on a read-only
// filesystem printed "expiry sweep: write vault … read-only". It needs a
// private mount namespace (unshare -m) to mount a read-only tmpfs, and is
// skipped where that is not allowed.
func TestReadOnlyMediaNoSweepError(t *testing.T) {
	c := newMemCLI(t)
	c.store("a fact on read-only media")
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	script := `set -e
d=$(mktemp -d)
mount -t tmpfs none "$d"
cp "$SRC" "$SRC.config.json" "$d/"
[ -e "$SRC.lock" ] && cp "$SRC.lock" "$d/"
mount -o remount,ro "$d"
COMPARTMENT_VAULT="$d/memory.vault" "$BIN" recent
COMPARTMENT_VAULT="$d/memory.vault" "$BIN" search "read-only media"
COMPARTMENT_VAULT="$d/memory.vault" "$BIN" status >/dev/null`
	probe := exec.Command("unshare", "-m", "sh", "-c", `d=$(mktemp -d) && mount -t tmpfs none "$d" && mount -o remount,ro "$d"`)
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("cannot mount a read-only tmpfs here: %v %s", err, out)
	}
	cmd := exec.Command("unshare", "-m", "sh", "-c", script)
	cmd.Env = append(c.env(memCLIPass), "SRC="+c.vault, "BIN="+c.bin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("read commands on read-only media: %v\nstderr: %s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "a fact on read-only media") {
		t.Fatalf("recent on read-only media: %q", stdout.String())
	}
	if stderr.Len() > 0 {
		t.Fatalf("read commands on read-only media printed: %q", stderr.String())
	}
}

// TestServeForbidsCoreDumps: a running server (which holds the key) has a
// core size limit of 0 even when started under `ulimit -c unlimited`.
func TestServeForbidsCoreDumps(t *testing.T) {
	c := newMemCLI(t)
	cmd := exec.Command("sh", "-c", `ulimit -c unlimited 2>/dev/null || true; exec "$BIN" serve`)
	cmd.Env = append(c.env(memCLIPass), "BIN="+c.bin)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"))
	buf := make([]byte, 256)
	if _, err := stdout.Read(buf); err != nil {
		t.Fatalf("no reply from serve: %v", err)
	}
	limits, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "limits"))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(limits), "\n") {
		if strings.HasPrefix(line, "Max core file size") {
			if f := strings.Fields(line); len(f) < 6 || f[4] != "0" || f[5] != "0" {
				t.Fatalf("core limit of the running server: %q", line)
			}
			return
		}
	}
	t.Fatalf("no core limit in /proc/<pid>/limits:\n%s", limits)
}
