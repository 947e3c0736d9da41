package embed

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// EnvModelBaseURL replaces https://huggingface.co in catalogue download
// URLs: a mirror for people behind one, a loopback server for tests.
const EnvModelBaseURL = "COMPARTMENT_MODEL_BASE_URL"

// ErrHashMismatch means a downloaded or copied file is not the pinned one;
// nothing was installed.
var ErrHashMismatch = errors.New("embed: file does not match its pinned SHA-256")

// InstallOptions says where a model comes from and where it goes.
type InstallOptions struct {
	// ModelsDir is where models are installed; empty means
	// [DefaultModelsDir].
	ModelsDir string
	// From is a local directory holding the model's files (by their
	// manifest name, or by their path in the download URL, e.g.
	// onnx/model_int8.onnx). Nothing is downloaded when it is set. A
	// directory with its own manifest.json installs that model, whatever
	// its name.
	From string
	// BaseURL replaces https://huggingface.co in download URLs; empty means
	// $COMPARTMENT_MODEL_BASE_URL, else the real host.
	BaseURL string
	// Client makes the requests; nil means a client with a generous
	// timeout.
	Client *http.Client
	// Progress, when set, receives one line per file and progress lines
	// during downloads.
	Progress io.Writer
}

// Install puts a model into the models directory, checking every byte
// against the pinned SHA-256 first: name is a catalogue model (empty means
// [DefaultDownload]), or any name for a model installed from a directory
// with a manifest. The install is atomic: the model directory appears
// complete or not at all, and a failed install leaves an existing copy in
// place. Installing a model that is already there and intact does nothing.
// It returns the installed manifest and directory.
func Install(name string, opts InstallOptions) (*Manifest, string, error) {
	m, err := installManifest(name, opts.From)
	if err != nil {
		return nil, "", err
	}
	modelsDir := opts.ModelsDir
	if modelsDir == "" {
		modelsDir = DefaultModelsDir()
	}
	target := filepath.Join(modelsDir, m.Name)
	if installedIntact(m, target) {
		opts.progress("%s is already installed in %s\n", m.Name, target)
		return m, target, nil
	}
	if err := os.MkdirAll(modelsDir, 0o700); err != nil {
		return nil, "", fmt.Errorf("embed: install %s: %w", m.Name, err)
	}
	staging, err := os.MkdirTemp(modelsDir, ".install-"+m.Name+"-")
	if err != nil {
		return nil, "", fmt.Errorf("embed: install %s: %w", m.Name, err)
	}
	defer os.RemoveAll(staging)
	for _, f := range m.Files {
		if err := opts.fetch(f, filepath.Join(staging, f.Path)); err != nil {
			return nil, "", fmt.Errorf("embed: install %s: %w", m.Name, err)
		}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, "", fmt.Errorf("embed: install %s: %w", m.Name, err)
	}
	if err := writeFileAtomic(filepath.Join(staging, ManifestFile), append(data, '\n'), 0o600); err != nil {
		return nil, "", err
	}
	if err := swapDir(staging, target); err != nil {
		return nil, "", fmt.Errorf("embed: install %s: %w", m.Name, err)
	}
	opts.progress("installed %s in %s\n", m.Name, target)
	return m, target, nil
}

// installManifest is the manifest to install: the one in from, if any
// (renamed to name when given), else the catalogue's.
func installManifest(name, from string) (*Manifest, error) {
	if from != "" {
		if m, err := ReadManifest(filepath.Join(from, ManifestFile)); err == nil {
			if name != "" {
				if !validModelName(name) {
					return nil, fmt.Errorf("%w: %q is not a model name", ErrManifest, name)
				}
				m.Name = name
			}
			return m, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	if name == "" {
		name = DefaultDownload
	}
	m, ok := CatalogueModel(name)
	if !ok {
		return nil, fmt.Errorf("%w: no model called %q to download (known: %s); "+
			"to install your own, put its files and a %s in a directory and use --from",
			ErrModelNotFound, name, strings.Join(CatalogueNames(), ", "), ManifestFile)
	}
	return &m, nil
}

// installedIntact reports whether target already holds exactly m.
func installedIntact(m *Manifest, target string) bool {
	have, err := ReadManifest(filepath.Join(target, ManifestFile))
	if err != nil {
		return false
	}
	a, errA := have.Pin()
	b, errB := m.Pin()
	return errA == nil && errB == nil && a == b && have.Verify(target) == nil
}

// fetch copies or downloads one file to dst, refusing it unless its size
// and SHA-256 match.
func (o InstallOptions) fetch(f ManifestItem, dst string) error {
	src, size, err := o.open(f)
	if err != nil {
		return err
	}
	defer src.Close()
	if f.Size > 0 && size >= 0 && size != f.Size {
		return fmt.Errorf("%w: %s is %d bytes, pinned size is %d", ErrHashMismatch, f.Path, size, f.Size)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	h := sha256.New()
	var body io.Reader = src
	if f.Size > 0 {
		body = io.LimitReader(src, f.Size+1) // one byte over is enough to refuse
	}
	n, err := io.Copy(io.MultiWriter(out, h, o.meter(f)), body)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if f.Size > 0 && n != f.Size || !strings.EqualFold(sum, f.SHA256) {
		return fmt.Errorf("%w: %s has sha256 %s (%d bytes), pinned %s (%d bytes); refusing to install it",
			ErrHashMismatch, f.Path, sum, n, f.SHA256, f.Size)
	}
	if err := out.Sync(); err != nil {
		return err
	}
	return out.Close()
}

// open returns the file's bytes from the local directory or the network,
// and their length when known (-1 otherwise).
func (o InstallOptions) open(f ManifestItem) (io.ReadCloser, int64, error) {
	if o.From != "" {
		return openLocal(o.From, f)
	}
	url := o.url(f)
	if url == "" {
		return nil, 0, fmt.Errorf("%s has no download URL; install it with --from", f.Path)
	}
	o.progress("downloading %s\n", url)
	client := o.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Minute}
	}
	resp, err := client.Get(url)
	if err != nil {
		return nil, 0, fmt.Errorf("download %s: %w", f.Path, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, 0, fmt.Errorf("download %s: %s from %s", f.Path, resp.Status, url)
	}
	return resp.Body, resp.ContentLength, nil
}

// url applies the base URL override to a catalogue URL.
func (o InstallOptions) url(f ManifestItem) string {
	base := o.BaseURL
	if base == "" {
		base = os.Getenv(EnvModelBaseURL)
	}
	if base == "" || !strings.HasPrefix(f.URL, huggingFace+"/") {
		return f.URL
	}
	return strings.TrimSuffix(base, "/") + strings.TrimPrefix(f.URL, huggingFace)
}

// openLocal finds a model file in dir: by its manifest path, by its path
// in the download URL (as a hub snapshot lays it out), or by the URL's
// base name.
func openLocal(dir string, f ManifestItem) (io.ReadCloser, int64, error) {
	candidates := []string{f.Path}
	if f.URL != "" {
		if i := strings.Index(f.URL, "/resolve/"); i >= 0 {
			rest := f.URL[i+len("/resolve/"):]
			if j := strings.IndexByte(rest, '/'); j >= 0 {
				candidates = append(candidates, rest[j+1:])
			}
		}
		candidates = append(candidates, path.Base(f.URL))
	}
	for _, c := range candidates {
		file, err := os.Open(filepath.Join(dir, filepath.FromSlash(c)))
		if err != nil {
			continue
		}
		st, err := file.Stat()
		if err != nil || !st.Mode().IsRegular() {
			file.Close()
			continue
		}
		return file, st.Size(), nil
	}
	return nil, 0, fmt.Errorf("%s not found in %s (looked for %s)", f.Path, dir, strings.Join(candidates, ", "))
}

// swapDir moves staging to target, replacing any previous copy only once
// the new one is complete.
func swapDir(staging, target string) error {
	if err := syncDir(staging); err != nil {
		return err
	}
	old := ""
	if _, err := os.Stat(target); err == nil {
		old = staging + ".old"
		if err := os.Rename(target, old); err != nil {
			return err
		}
	}
	if err := os.Rename(staging, target); err != nil {
		if old != "" {
			os.Rename(old, target)
		}
		return err
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return syncDir(filepath.Dir(target))
}

func (o InstallOptions) progress(format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, format, args...)
	}
}

// meter reports download progress in tenths of the file.
func (o InstallOptions) meter(f ManifestItem) io.Writer {
	if o.Progress == nil || o.From != "" || f.Size <= 0 {
		return io.Discard
	}
	return &progressMeter{w: o.Progress, name: f.Path, total: f.Size}
}

type progressMeter struct {
	w           io.Writer
	name        string
	total, done int64
	shown       int64 // tenths already reported
}

func (p *progressMeter) Write(b []byte) (int, error) {
	p.done += int64(len(b))
	if tenth := p.done * 10 / p.total; tenth > p.shown && tenth <= 10 {
		p.shown = tenth
		fmt.Fprintf(p.w, "  %s: %.1f / %.1f MB\n", p.name, float64(p.done)/1e6, float64(p.total)/1e6)
	}
	return len(b), nil
}

// FetchFile downloads (or, with opts.From, copies) one pinned file to dst,
// which must not exist, refusing it unless its size and SHA-256 match: the
// checks of a model install, for other pinned files (benchmark data).
func FetchFile(f ManifestItem, dst string, opts InstallOptions) error { return opts.fetch(f, dst) }
