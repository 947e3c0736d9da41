package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBundleRoundTrip: a bundle's binary and signature come back out of
// it unchanged, and its SHA256SUMS lists every other file correctly.
func TestBundleRoundTrip(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "compartment")
	os.WriteFile(bin, []byte("program bytes"), 0o755)
	model := filepath.Join(dir, "model")
	os.MkdirAll(filepath.Join(model, "onnx"), 0o755)
	os.WriteFile(filepath.Join(model, "manifest.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(model, "onnx", "m.onnx"), []byte("weights"), 0o644)
	out := filepath.Join(dir, "b.tar.gz")
	files, err := WriteBundle(out, BundleOptions{GOOS: "linux", GOARCH: "amd64", Binary: bin,
		Signature: []byte("sig\n"), Models: map[string]string{"tiny": model}})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, f := range files {
		names[f.Name] = f.SHA256
	}
	for _, want := range []string{"bin/compartment", "bin/compartment.sig", "models/tiny/manifest.json", "models/tiny/onnx/m.onnx", "install.sh", "INSTALL.txt"} {
		if names[want] == "" {
			t.Fatalf("bundle lacks %s: %v", want, files)
		}
	}
	got, sig, err := ExtractBinary(out, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(got); string(data) != "program bytes" || string(sig) != "sig\n" {
		t.Fatalf("extracted %q, signature %q", data, sig)
	}
	if _, _, err := ExtractBinary(bin, t.TempDir()); err == nil {
		t.Fatal("a file that is not a .tar.gz was accepted")
	}
}

// FuzzExtractBinary: whatever archive it is handed, ExtractBinary never
// panics and writes nothing but the binary, inside the directory given.
func FuzzExtractBinary(f *testing.F) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range []struct{ name, body string }{
		{"compartment/compartment", "bin"}, {"compartment/compartment.sig", "sig"}, {"../escape", "x"},
	} {
		tw.WriteHeader(&tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(e.body))
	}
	tw.Close()
	gz.Close()
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		archive := filepath.Join(root, "a.tar.gz")
		os.WriteFile(archive, data, 0o600)
		dir := filepath.Join(root, "out")
		os.Mkdir(dir, 0o700)
		bin, _, err := ExtractBinary(archive, dir)
		entries, _ := os.ReadDir(dir)
		if err != nil {
			return
		}
		if filepath.Dir(bin) != dir || len(entries) != 1 || !strings.HasPrefix(filepath.Base(bin), "compartment") {
			t.Fatalf("extracted %s, directory holds %v", bin, entries)
		}
		if top, _ := os.ReadDir(root); len(top) != 2 {
			t.Fatalf("something was written beside the output directory: %v", top)
		}
	})
}

func mustGzipEmptyTar(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "README", Size: 2, Mode: 0o644})
	tw.Write([]byte("hi"))
	tw.Close()
	gz.Close()
	return b.Bytes()
}
