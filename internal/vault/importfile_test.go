package vault

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenImport: a regular file is counted and rewound (the import then
// reads every line of it into a real vault), its name becomes the default
// source; stdin ("-") is a stream with no count; a missing file is an
// import error naming it.
func TestOpenImport(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "facts.jsonl")
	body := `{"text": "The staging database listens on port 5433", "source": "s"}` + "\n" +
		`{"text": "Deploys happen on Tuesday afternoons"}` + "\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	in, err := OpenImport(path, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if in.Lines != 2 || in.Source != "imported from facts.jsonl" {
		t.Fatalf("lines %d, source %q", in.Lines, in.Source)
	}
	v := newHarness(t, nil).open("user")
	defer v.Close()
	res, err := v.Import(in.R, in.Source, nil)
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if err != nil || res.Stored != 2 || res.Lines != 2 {
		t.Fatalf("import after the count: %+v %v", res, err)
	}

	stdin := strings.NewReader(body)
	in, err = OpenImport("-", stdin, "piped")
	if err != nil || in.Lines != 0 || in.Source != "piped" || in.R != io.Reader(stdin) {
		t.Fatalf("stdin: %+v %v", in, err)
	}
	if _, err := OpenImport(filepath.Join(dir, "missing.jsonl"), nil, ""); err == nil || !strings.Contains(err.Error(), "import: ") || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Fatalf("missing file: %v", err)
	}
}
