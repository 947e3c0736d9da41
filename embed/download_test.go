package embed

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// hubServer serves files on loopback under the paths a catalogue URL has
// after https://huggingface.co, and counts requests.
type hubServer struct {
	*httptest.Server
	mu    sync.Mutex
	files map[string][]byte
	hits  map[string]int
}

func newHubServer(t *testing.T, files map[string][]byte) *hubServer {
	h := &hubServer{files: files, hits: map[string]int{}}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.hits[r.URL.Path]++
		body, ok := h.files[r.URL.Path]
		h.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hubServer) requests() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.hits {
		n += c
	}
	return n
}

// withFixtureInCatalogue adds the fixture to the catalogue, with URLs on
// the hub's layout, for the length of the test.
func withFixtureInCatalogue(t *testing.T) (Manifest, map[string][]byte) {
	t.Helper()
	m, err := ReadManifest(filepath.Join(fixtureDir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	m.Name = "tiny-bert-download"
	files := map[string][]byte{}
	for i, f := range m.Files {
		data, err := os.ReadFile(filepath.Join(fixtureDir, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		remote := "/compartment/tiny-bert/resolve/0123abcd/onnx/" + f.Path
		m.Files[i].URL = huggingFace + remote
		files[remote] = data
	}
	saved := catalogue
	catalogue = append(append([]Manifest(nil), saved...), *m)
	t.Cleanup(func() { catalogue = saved })
	return *m, files
}

func TestONNXDownloadFromLoopbackHub(t *testing.T) {
	m, files := withFixtureInCatalogue(t)
	hub := newHubServer(t, files)
	models := t.TempDir()
	var progress bytes.Buffer
	got, dir, err := Install(m.Name, InstallOptions{ModelsDir: models, BaseURL: hub.URL, Progress: &progress})
	if err != nil {
		t.Fatalf("install: %v\n%s", err, progress.String())
	}
	if dir != filepath.Join(models, m.Name) || got.Name != m.Name {
		t.Fatalf("installed %s in %s", got.Name, dir)
	}
	if hub.requests() != len(files) {
		t.Errorf("%d requests for %d files", hub.requests(), len(files))
	}
	if !strings.Contains(progress.String(), hub.URL) {
		t.Errorf("progress does not name the source:\n%s", progress.String())
	}
	installed, err := ReadManifest(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := installed.Verify(dir); err != nil {
		t.Fatal(err)
	}
	wantPin, _ := m.Pin()
	if pin, _ := installed.Pin(); pin != wantPin {
		t.Errorf("installed pin %x, catalogue pin %x", pin, wantPin)
	}
	for _, f := range m.Files {
		st, err := os.Stat(filepath.Join(dir, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v; want private files", f.Path, st.Mode())
		}
	}
	// A second install finds the model intact and downloads nothing.
	if _, _, err := Install(m.Name, InstallOptions{ModelsDir: models, BaseURL: hub.URL}); err != nil {
		t.Fatal(err)
	}
	if hub.requests() != len(files) {
		t.Errorf("reinstalling an intact model made %d more requests", hub.requests()-len(files))
	}
	// And it loads.
	requireORT(t)
	enc, err := Load(LoadOptions{Name: m.Name, ModelsDir: models})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	if enc.Info().SHA256 != wantPin {
		t.Errorf("loaded pin %x, want %x", enc.Info().SHA256, wantPin)
	}
}

// TestONNXDownloadRefusesWrongHash: one flipped bit in the served weights
// and nothing is installed; an intact existing install stays as it was.
func TestONNXDownloadRefusesWrongHash(t *testing.T) {
	m, files := withFixtureInCatalogue(t)
	tampered := map[string][]byte{}
	for path, data := range files {
		c := bytes.Clone(data)
		if strings.HasSuffix(path, ".onnx") {
			c[len(c)/3] ^= 0x10
		}
		tampered[path] = c
	}
	models := t.TempDir()
	bad := newHubServer(t, tampered)
	_, _, err := Install(m.Name, InstallOptions{ModelsDir: models, BaseURL: bad.URL})
	if !errors.Is(err, ErrHashMismatch) || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("tampered download: err = %v, want ErrHashMismatch", err)
	}
	if entries, _ := os.ReadDir(models); len(entries) != 0 {
		t.Fatalf("a refused download left %d entries in the models dir: %v", len(entries), entries)
	}
	// Install the good one, then try the bad one over it.
	good := newHubServer(t, files)
	if _, _, err := Install(m.Name, InstallOptions{ModelsDir: models, BaseURL: good.URL}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(models, m.Name, ManifestFile)) // force a reinstall
	if _, _, err := Install(m.Name, InstallOptions{ModelsDir: models, BaseURL: bad.URL}); !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("tampered reinstall: %v", err)
	}
	weights := filepath.Join(models, m.Name, m.Files[0].Path)
	if sum, _, err := hashFile(weights); err != nil || sum != m.Files[0].SHA256 {
		t.Errorf("the previous install was damaged by a refused one: %v %s", err, sum)
	}
	// A file of the wrong size is refused too (here: served truncated).
	short := map[string][]byte{}
	for path, data := range files {
		short[path] = data[:len(data)-1]
	}
	if _, _, err := Install(m.Name, InstallOptions{ModelsDir: t.TempDir(), BaseURL: newHubServer(t, short).URL}); !errors.Is(err, ErrHashMismatch) {
		t.Errorf("truncated download: %v", err)
	}
}

// TestONNXDownloadCatalogueURLs runs the real bge-small entry against a
// loopback hub that serves the right paths with the wrong bytes: the URL
// layout is what the hub uses, and the pinned hashes refuse the bytes.
func TestONNXDownloadCatalogueURLs(t *testing.T) {
	m, ok := CatalogueModel("bge-small-en-v1.5")
	if !ok || m.Name != DefaultDownload {
		t.Fatalf("alias bge-small-en-v1.5 -> %q, %v", m.Name, ok)
	}
	files := map[string][]byte{}
	for _, f := range m.Files {
		if !strings.HasPrefix(f.URL, huggingFace+"/Xenova/bge-small-en-v1.5/resolve/"+bgeSmallRevision+"/") {
			t.Fatalf("unexpected URL %s", f.URL)
		}
		files[strings.TrimPrefix(f.URL, huggingFace)] = []byte("not the model")
	}
	hub := newHubServer(t, files)
	t.Setenv(EnvModelBaseURL, hub.URL)
	models := t.TempDir()
	_, _, err := Install("", InstallOptions{ModelsDir: models})
	if !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("wrong bytes for the default model: err = %v", err)
	}
	if hub.requests() != 1 {
		t.Errorf("%d requests: the first refused file should stop the install", hub.requests())
	}
	if _, _, err := Install("no-such-model", InstallOptions{ModelsDir: models}); !errors.Is(err, ErrModelNotFound) {
		t.Errorf("unknown model: %v", err)
	}
	// A missing file on the hub is an error, not an install.
	hub404 := newHubServer(t, map[string][]byte{})
	if _, _, err := Install("", InstallOptions{ModelsDir: models, BaseURL: hub404.URL}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("404: %v", err)
	}
}

// TestONNXInstallFrom covers --from: a directory laid out like a hub
// snapshot (onnx/model_int8.onnx), and one with its own manifest.
func TestONNXInstallFrom(t *testing.T) {
	m, files := withFixtureInCatalogue(t)
	snapshot := t.TempDir()
	for remote, data := range files {
		rel := remote[strings.Index(remote, "/onnx/")+1:]
		p := filepath.Join(snapshot, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	models := t.TempDir()
	if _, _, err := Install(m.Name, InstallOptions{ModelsDir: models, From: snapshot}); err != nil {
		t.Fatalf("install from a snapshot: %v", err)
	}
	got, dir, err := Install("renamed-fixture", InstallOptions{ModelsDir: models, From: fixtureDir})
	if err != nil {
		t.Fatalf("install from a manifest dir: %v", err)
	}
	if got.Name != "renamed-fixture" || filepath.Base(dir) != "renamed-fixture" {
		t.Errorf("installed as %s in %s", got.Name, dir)
	}
	names, _ := InstalledModels(models)
	if strings.Join(names, ",") != "renamed-fixture,"+m.Name {
		t.Errorf("installed models = %v", names)
	}
	if _, _, err := Install(m.Name, InstallOptions{ModelsDir: t.TempDir(), From: t.TempDir()}); err == nil {
		t.Error("installing from an empty directory succeeded")
	}
}
