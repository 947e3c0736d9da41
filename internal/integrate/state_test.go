package integrate

import (
	"os"
	"path/filepath"
	"testing"
)

func testEnv(t *testing.T) Env {
	home := t.TempDir()
	return Env{GOOS: "linux", Home: home, Getenv: func(string) string { return "" }}
}

// A skill the user changed is backed up before ours is written, and
// uninstall gives the user's copy back; one they never had is removed.
func TestSkillUserCopy(t *testing.T) {
	e := testEnv(t)
	st, _ := LoadState(e)
	c, _ := Find("hermes")
	path := SkillPath(c.Skills(e))
	if ch, err := InstallSkill(e, st, c, false); err != nil || ch.Action != "created" {
		t.Fatalf("first install: %+v %v", ch, err)
	}
	if ch, _ := InstallSkill(e, st, c, false); ch.Action != "unchanged" {
		t.Fatalf("second install: %+v", ch)
	}
	mine := []byte("my own /compartmentalize, edited\n")
	os.WriteFile(path, mine, 0o600)
	ch, err := InstallSkill(e, st, c, false)
	if err != nil || ch.Backup == "" {
		t.Fatalf("install over a changed copy: %+v %v", ch, err)
	}
	if b, _ := os.ReadFile(ch.Backup); string(b) != string(mine) {
		t.Fatalf("backup holds %q", b)
	}
	if b, _ := os.ReadFile(path); string(b) != string(SkillMD) {
		t.Fatal("ours was not written")
	}
	// uninstall: the file is as we left it, so the user's copy returns.
	st2, _ := LoadState(e)
	it := st2.Find(KindSkill, path)
	if ch, err := Undo(e, st2, it, false); err != nil || ch.Action != "restored" {
		t.Fatalf("undo: %+v %v", ch, err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(mine) {
		t.Fatalf("after uninstall the skill is %q", b)
	}
}

// Writing over a file keeps the first backup while the file is still what
// we wrote, so uninstall restores the user's original, not our own older
// version; the directory we created goes with the file.
func TestBackupChain(t *testing.T) {
	e := testEnv(t)
	st, _ := LoadState(e)
	c, _ := Find("codex")
	path := c.File(e)
	orig := "# mine\nmodel = \"o3\"\n"
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte(orig), 0o640)
	if _, err := Wire(e, st, c, Server{Command: "/a/compartment"}, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Wire(e, st, c, Server{Command: "/b/compartment", Caller: "other"}, Options{}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, want the file's own 0640", fi.Mode().Perm())
	}
	st2, _ := LoadState(e)
	if ch, err := Unwire(e, st2, c, false); err != nil || ch.Action != "restored" {
		t.Fatalf("unwire: %+v %v", ch, err)
	}
	if b, _ := os.ReadFile(path); string(b) != orig {
		t.Fatalf("restored %q, want the original", b)
	}
	// A file we created is removed.
	g, _ := Find("gemini")
	Wire(e, st2, g, Server{Command: "compartment"}, Options{})
	if ch, _ := Unwire(e, st2, g, false); ch.Action != "removed" {
		t.Fatalf("unwire of a created file: %+v", ch)
	}
	if _, err := os.Stat(g.File(e)); err == nil {
		t.Fatal("the file we created is still there")
	}
}
