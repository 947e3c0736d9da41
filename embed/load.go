package embed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// EnvModelsDir overrides the directory installed models live in
// (default ~/.compartment/models).
const EnvModelsDir = "COMPARTMENT_MODELS_DIR"

// StaticModel is the name that selects the bundled static model.
const StaticModel = "static"

// staticV1Alias also selects the bundled static model, beside
// [StaticV2Model]'s name for v2.
const staticV1Alias = "static-v1"

// StaticV2Model is the name that selects the bundled retrieval-trained
// static model, compartment-static-v2 (also selected by that full name).
const StaticV2Model = "static-v2"

// defaultModelFile, inside the models directory, holds the name of the
// model the user chose as default (see [SetDefaultModel]).
const defaultModelFile = "default"

// ErrModelNotFound means the named model is neither installed nor bundled.
var ErrModelNotFound = errors.New("embed: model not found")

// LoadOptions says which model to load and where to find it.
type LoadOptions struct {
	// Name selects a model: an installed model's name, "static" for the
	// bundled static model, or a path (containing a '/') to a model
	// directory or its manifest.json. Empty means the default: the model
	// the user chose with [SetDefaultModel], else the static model.
	Name string
	// Path names a model directory or manifest.json; it wins over Name.
	Path string
	// ModelsDir is where installed models live; empty means
	// [DefaultModelsDir].
	ModelsDir string
	// RuntimeLib is the user's setting for the ONNX Runtime library. The
	// COMPARTMENT_ORT_LIB environment variable wins over it; empty means
	// the standard install locations.
	RuntimeLib string
}

// DefaultModelsDir is $COMPARTMENT_MODELS_DIR, else ~/.compartment/models.
func DefaultModelsDir() string {
	if d := os.Getenv(EnvModelsDir); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".compartment", "models")
	}
	return filepath.Join(home, ".compartment", "models")
}

func (o LoadOptions) modelsDir() string {
	if o.ModelsDir != "" {
		return o.ModelsDir
	}
	return DefaultModelsDir()
}

// Load opens a model in this process. Most callers want [Open], which
// shares one loaded model between processes through the embedding daemon.
func Load(opts LoadOptions) (Encoder, error) {
	ref, m, err := resolveModel(opts)
	if err != nil {
		return nil, err
	}
	return openRef(ref, m, opts.RuntimeLib)
}

// Resolve checks that opts names a model that [Load] could open (built in,
// installed, or a model directory), reading its manifest but not its
// weights. Configuration uses it to refuse a model that is not there.
func Resolve(opts LoadOptions) error {
	_, _, err := resolveModel(opts)
	return err
}

// Model kinds in a modelRef.
const (
	refStatic = "static"
	refONNX   = "onnx"
	refTest   = "test" // encoders registered by this package's tests
)

// modelRef is a resolved model choice: enough to open it, and to tell
// whether an encoder (say, the daemon's) is the one asked for.
type modelRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Dir  string `json:"dir,omitempty"` // absolute model directory (onnx)
	Pin  string `json:"pin,omitempty"` // hex pin from the manifest (onnx)
	// Build identifies the executable for models built into it (static):
	// after an upgrade, a daemon still running the old binary serves the
	// old model, and this is how a client notices.
	Build string `json:"build,omitempty"`
}

// testEncoders holds encoders this package's tests register by name
// ("test:…"); it stays empty in every real binary.
var testEncoders = map[string]func() (Encoder, error){}

// resolveModel turns options into a modelRef, reading the manifest (but
// not hashing the model's files) for ONNX models.
func resolveModel(opts LoadOptions) (modelRef, *Manifest, error) {
	name := strings.TrimSpace(opts.Name)
	path := opts.Path
	if path == "" && looksLikePath(name) {
		path, name = name, ""
	}
	if path != "" {
		return resolvePath(path)
	}
	if name == "" {
		chosen, err := DefaultModel(opts.modelsDir())
		if err != nil {
			return modelRef{}, nil, err
		}
		name = chosen
	}
	switch {
	case name == StaticV2Model || name == StaticV2ModelName:
		return modelRef{Kind: refStatic, Name: StaticV2Model, Build: executableBuild()}, nil, nil
	case name == "" || name == StaticModel || name == staticV1Alias || strings.HasPrefix(name, "compartment-static"):
		return modelRef{Kind: refStatic, Name: StaticModel, Build: executableBuild()}, nil, nil
	case strings.HasPrefix(name, "test:") && testEncoders[name] != nil:
		return modelRef{Kind: refTest, Name: name}, nil, nil
	}
	if cat, ok := CatalogueModel(name); ok {
		name = cat.Name
	}
	if !validModelName(name) {
		return modelRef{}, nil, fmt.Errorf("%w: %q is not a model name", ErrModelNotFound, name)
	}
	dir := filepath.Join(opts.modelsDir(), name)
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err != nil {
		return modelRef{}, nil, notInstalled(name, opts.modelsDir())
	}
	return resolvePath(dir)
}

// resolvePath reads the manifest of a model directory (or of the
// manifest file itself).
func resolvePath(path string) (modelRef, *Manifest, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return modelRef{}, nil, fmt.Errorf("embed: model path %s: %w", path, err)
	}
	manifestPath := abs
	if st, err := os.Stat(abs); err == nil && st.IsDir() {
		manifestPath = filepath.Join(abs, ManifestFile)
	}
	m, err := ReadManifest(manifestPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return modelRef{}, nil, fmt.Errorf("%w: no %s at %s", ErrModelNotFound, ManifestFile, path)
		}
		return modelRef{}, nil, err
	}
	pin, err := m.Pin()
	if err != nil {
		return modelRef{}, nil, err
	}
	return modelRef{Kind: refONNX, Name: m.Name, Dir: filepath.Dir(manifestPath), Pin: FormatPin(pin)}, m, nil
}

// openRef opens a resolved model in this process.
func openRef(ref modelRef, m *Manifest, runtimeLib string) (Encoder, error) {
	switch ref.Kind {
	case refStatic:
		if ref.Name == StaticV2Model {
			return OpenStaticV2()
		}
		return OpenStatic()
	case refTest:
		return testEncoders[ref.Name]()
	case refONNX:
		if m == nil {
			var err error
			if _, m, err = resolvePath(ref.Dir); err != nil {
				return nil, err
			}
		}
		return openONNX(m, ref.Dir, runtimeLib)
	}
	return nil, fmt.Errorf("embed: unknown model kind %q", ref.Kind)
}

// executableBuild names this executable's bytes cheaply: path, size and
// modification time.
func executableBuild() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(exe)
	if err != nil {
		return exe
	}
	return fmt.Sprintf("%s|%d|%d", exe, st.Size(), st.ModTime().UnixNano())
}

// looksLikePath tells a path from a model name: names never contain a
// separator or start with a dot or a tilde.
func looksLikePath(s string) bool {
	return strings.ContainsRune(s, '/') || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "~")
}

// notInstalled explains how to get a model that is not installed.
func notInstalled(name, modelsDir string) error {
	if _, ok := CatalogueModel(name); ok {
		return fmt.Errorf("%w: %s is not installed in %s; run `compartment setup download-model %s` "+
			"(or `--from DIR` with its files on a machine without network)", ErrModelNotFound, name, modelsDir, name)
	}
	installed, _ := InstalledModels(modelsDir)
	return fmt.Errorf("%w: %q is not installed in %s (installed: %s; downloadable: %s)", ErrModelNotFound,
		name, modelsDir, orNone(installed), strings.Join(CatalogueNames(), ", "))
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// InstalledModels lists the names of the models installed in modelsDir.
func InstalledModels(modelsDir string) ([]string, error) {
	entries, err := os.ReadDir(modelsDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("embed: list models: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && validModelName(e.Name()) {
			if _, err := os.Stat(filepath.Join(modelsDir, e.Name(), ManifestFile)); err == nil {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

// DefaultModel returns the model name the user chose as default in
// modelsDir, or "" when they chose none (the static model is then the
// default).
func DefaultModel(modelsDir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(modelsDir, defaultModelFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("embed: read default model: %w", err)
	}
	return strings.TrimSpace(string(data)), nil
}

// SetDefaultModel makes name (an installed model, or "static") the model
// an empty [LoadOptions.Name] selects. Vaults pinned to the previous
// default then refuse to open until `compartment reindex --re-embed`.
func SetDefaultModel(modelsDir, name string) error {
	if name != StaticModel {
		if _, _, err := resolveModel(LoadOptions{Name: name, ModelsDir: modelsDir}); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(modelsDir, 0o700); err != nil {
		return fmt.Errorf("embed: set default model: %w", err)
	}
	return writeFileAtomic(filepath.Join(modelsDir, defaultModelFile), []byte(name+"\n"), 0o600)
}

// writeFileAtomic writes data to a temporary file beside path, syncs it
// and renames it over path, so readers see the old or the new content.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("embed: write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("embed: write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return fmt.Errorf("embed: write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("embed: write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("embed: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("embed: write %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("embed: sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("embed: sync %s: %w", dir, err)
	}
	return nil
}
