package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/compartment/compartment/embed"
)

// pinFixture replaces the pinned "s" file by a synthetic one for the test,
// served by a loopback server at the pinned URL's path. It returns the
// server's base URL, the file's bytes and a request counter.
func pinFixture(t *testing.T) (string, []byte, *atomic.Int32) {
	t.Helper()
	data, err := json.Marshal(syntheticLME())
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	item := LMEDownloads["s"]
	remote := strings.TrimPrefix(item.URL, "https://huggingface.co")
	item.SHA256, item.Size = hex.EncodeToString(sum[:]), int64(len(data))
	saved := LMEDownloads
	LMEDownloads = map[string]embed.ManifestItem{"s": item}
	t.Cleanup(func() { LMEDownloads = saved })
	var hits atomic.Int32
	var body atomic.Value
	body.Store(data)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != remote {
			http.NotFound(w, r)
			return
		}
		w.Write(body.Load().([]byte))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, data, &hits
}

// TestDownloadLongMemEvalFromLoopback: the pinned file downloads from the
// pinned path, lands where `bench --longmemeval s` reads it, and a second
// run does not download again.
func TestDownloadLongMemEvalFromLoopback(t *testing.T) {
	base, data, hits := pinFixture(t)
	dir := t.TempDir()
	path, err := DownloadLongMemEval("s", dir, embed.InstallOptions{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(data) || path != filepath.Join(dir, "s.json") {
		t.Fatalf("installed %s with %d bytes", path, len(got))
	}
	r, err := RunLongMemEval(LMEOptions{Path: "s", DataDir: dir, Limit: 1}, nil)
	if err != nil || r.Questions != 1 {
		t.Fatalf("bench on the download: %v, %d questions", err, r.Questions)
	}
	before := hits.Load()
	if _, err := DownloadLongMemEval("s", dir, embed.InstallOptions{BaseURL: base}); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != before {
		t.Fatal("an intact install was downloaded again")
	}
}

// TestDownloadLongMemEvalRefusesOtherBytes: a server (or a local file)
// with different bytes is refused and nothing is installed.
func TestDownloadLongMemEvalRefusesOtherBytes(t *testing.T) {
	_, data, _ := pinFixture(t)
	from := t.TempDir()
	bad := append([]byte(nil), data...)
	bad[len(bad)/2] ^= 1
	if err := os.WriteFile(filepath.Join(from, "longmemeval_s_cleaned.json"), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, err := DownloadLongMemEval("s", dir, embed.InstallOptions{From: from})
	if !errors.Is(err, embed.ErrHashMismatch) {
		t.Fatalf("changed file: %v, want ErrHashMismatch", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("something was left behind: %v", entries)
	}
	// The right bytes under the file's own name install from the directory.
	os.WriteFile(filepath.Join(from, "longmemeval_s_cleaned.json"), data, 0o600)
	if _, err := DownloadLongMemEval("s", dir, embed.InstallOptions{From: from}); err != nil {
		t.Fatalf("--from with the pinned file: %v", err)
	}
	if _, err := DownloadLongMemEval("xl", dir, embed.InstallOptions{From: from}); err == nil || !strings.Contains(err.Error(), "pinned: s") {
		t.Fatalf("unknown variant: %v", err)
	}
}
