package layout

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/compartment/compartment"

// level is a package's layer in the map, higher is further up: a package
// may depend only on packages of a lower layer, or its own.
func level(pkg string) (int, bool) {
	rel, ok := strings.CutPrefix(pkg, module+"/")
	if !ok {
		return 0, false // the standard library and other modules
	}
	top, _, _ := strings.Cut(rel, "/")
	switch top {
	case "simd":
		return 0, true
	case "rank", "embed", "fts", "ann", "vaultfmt":
		return 1, true
	case "internal":
		return 2, true
	case "bench", "cmd":
		return 3, true
	}
	return 0, false
}

// TestNoUpwardImports walks `go list -deps` of every package in the module
// (test imports left out: a test may drive a package from above) and
// fails on any dependency of a higher layer, naming the chain's first
// edge.
func TestNoUpwardImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps=false", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		pkg, deps := f[0], f[1:]
		from, ok := level(pkg)
		if !ok {
			continue
		}
		checked++
		for _, d := range deps {
			to, ok := level(d)
			if !ok {
				continue
			}
			if to > from {
				t.Errorf("%s (layer %d) depends on %s (layer %d): the map's arrows point down only", pkg, from, d, to)
			}
			if strings.HasPrefix(d, module+"/cmd/") {
				t.Errorf("%s depends on the command %s", pkg, d)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d packages checked; go list printed:\n%s", checked, out)
	}
}

// The check itself fails on an upward edge.
func TestLevelOrder(t *testing.T) {
	for _, c := range []struct{ lower, higher string }{
		{"simd", "ann"}, {"vaultfmt", "internal/vault"}, {"embed/train/cmd/x", "internal/search"}, {"internal/mcp", "cmd/compartment"},
	} {
		lo, _ := level(module + "/" + c.lower)
		hi, _ := level(module + "/" + c.higher)
		if lo >= hi {
			t.Errorf("%s (%d) should sit below %s (%d)", c.lower, lo, c.higher, hi)
		}
	}
}

// panelForbidden are the packages the panel binary must not link: the
// panel drives the CLI and decodes its JSON (internal/shape), and these
// bring the vault, the embedded model and the search engine with them
// (the binary grew from 14 MB to 47 MB when it imported them).
var panelForbidden = []string{"internal/vault", "embed", "internal/search", "ann", "fts", "rank", "internal/api", "internal/capture", "internal/session", "internal/devsync"}

// TestPanelStaysSlim fails when cmd/compartment-panel's import graph
// (tests left out) reaches a package of panelForbidden, naming the
// panel's own import that leads there.
func TestPanelStaysSlim(t *testing.T) {
	deps := func(pkg string) map[string]bool {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		set := map[string]bool{}
		for _, l := range strings.Fields(string(out)) {
			set[l] = true
		}
		return set
	}
	panel := module + "/cmd/compartment-panel"
	all := deps(panel)
	if !all[module+"/internal/shape"] {
		t.Fatalf("the panel does not import internal/shape; go list -deps printed %d packages", len(all))
	}
	out, err := exec.Command("go", "list", "-f", `{{range .Imports}}{{.}} {{end}}`, panel).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", panel, err)
	}
	direct := strings.Fields(string(out))
	for _, f := range panelForbidden {
		bad := module + "/" + f
		if !all[bad] {
			continue
		}
		via := "?"
		for _, d := range direct {
			if d == bad || deps(d)[bad] {
				via = d
				break
			}
		}
		t.Errorf("the panel links %s (through its import %s): decode the CLI's JSON into internal/shape instead", bad, via)
	}
}
