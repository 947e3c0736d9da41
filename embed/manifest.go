package embed

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ManifestFile is the name of the manifest inside an installed model's
// directory.
const ManifestFile = "manifest.json"

// manifestFormat is the only manifest version this code reads. Part of the
// format: do not change without a new version.
const manifestFormat = 1

// File roles in a manifest.
const (
	RoleWeights   = "weights"   // the ONNX graph with its weights
	RoleTokenizer = "tokenizer" // a HuggingFace tokenizer.json
)

// Manifest describes one installed ONNX embedding model. It is stored as
// manifest.json beside the model's files:
//
//	{
//	  "format": 1,
//	  "name": "bge-small-en-v1.5-int8",
//	  "backend": "onnx",
//	  "files": [
//	    {"role": "weights", "path": "model_int8.onnx", "sha256": "bf64…", "size": 33760831, "url": "https://…"},
//	    {"role": "tokenizer", "path": "tokenizer.json", "sha256": "d241…", "size": 711396, "url": "https://…"}
//	  ],
//	  "dim": 384, "pooling": "cls", "max_tokens": 512,
//	  "query_prefix": "Represent this sentence for searching relevant passages: ",
//	  "licence": "MIT", "source": "https://huggingface.co/…",
//	  "calibration": {"cos_floor": 0.25, "cos_ceil": 0.85, "same_meaning": 0.97, "same_topic": 0.80}
//	}
//
// Paths are relative to the manifest's directory. Every file is checked
// against its SHA-256 when the model is installed and again when it is
// loaded, so the pin (see [Manifest.Pin]) always describes the bytes that
// actually run.
type Manifest struct {
	Format      int            `json:"format"`
	Name        string         `json:"name"`
	Backend     string         `json:"backend"`
	Files       []ManifestItem `json:"files"`
	Dim         int            `json:"dim"`
	Pooling     string         `json:"pooling"`
	MaxTokens   int            `json:"max_tokens"`
	QueryPrefix string         `json:"query_prefix"`
	Licence     string         `json:"licence"`
	Source      string         `json:"source,omitempty"`
	// Calibration is what the model's cosines mean ([Calibration]); a
	// manifest without one is refused.
	Calibration *Calibration `json:"calibration"`
}

// ManifestItem is one file of a model.
type ManifestItem struct {
	Role   string `json:"role"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size,omitempty"`
	URL    string `json:"url,omitempty"`
}

// ErrManifest marks a manifest that is malformed or does not match its
// files.
var ErrManifest = errors.New("embed: bad model manifest")

// ReadManifest reads and validates a manifest.json. It does not hash the
// files; [Manifest.Verify] does.
func ReadManifest(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("embed: read manifest: %w", err)
	}
	var m Manifest
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrManifest, path, err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}

// Validate checks the manifest's fields without touching the files.
func (m *Manifest) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrManifest, fmt.Sprintf(format, args...))
	}
	switch {
	case m.Format != manifestFormat:
		return bad("format %d, this build reads %d", m.Format, manifestFormat)
	case !validModelName(m.Name):
		return bad("name %q: use letters, digits, '.', '_' and '-'", m.Name)
	case m.Backend != "onnx":
		return bad("backend %q: only \"onnx\" models are installed from manifests", m.Backend)
	case m.Dim <= 0 || m.Dim > 8192:
		return bad("dim %d out of range", m.Dim)
	case m.Pooling != "cls" && m.Pooling != "mean":
		return bad("pooling %q: want \"cls\" or \"mean\"", m.Pooling)
	case m.MaxTokens < WindowTokens+2:
		return bad("max_tokens %d: windows of %d tokens plus two special tokens must fit", m.MaxTokens, WindowTokens)
	}
	if m.Calibration == nil {
		return bad("model %s has no \"calibration\" object: its cosines cannot be read without one (FORMAT.md section 6.1)", m.Name)
	}
	if err := m.Calibration.Validate(); err != nil {
		return fmt.Errorf("%w: model %s: %v", ErrManifest, m.Name, err)
	}
	for _, role := range []string{RoleWeights, RoleTokenizer} {
		if _, err := m.file(role); err != nil {
			return err
		}
	}
	for _, f := range m.Files {
		if f.Path == "" || filepath.IsAbs(f.Path) || !filepath.IsLocal(f.Path) {
			return bad("file path %q must be relative and inside the model directory", f.Path)
		}
		if b, err := hex.DecodeString(f.SHA256); err != nil || len(b) != sha256.Size {
			return bad("file %s: sha256 %q is not 64 hex digits", f.Path, f.SHA256)
		}
	}
	return nil
}

// file returns the one file with the given role.
func (m *Manifest) file(role string) (ManifestItem, error) {
	var found []ManifestItem
	for _, f := range m.Files {
		if f.Role == role {
			found = append(found, f)
		}
	}
	if len(found) != 1 {
		return ManifestItem{}, fmt.Errorf("%w: want exactly one %q file, have %d", ErrManifest, role, len(found))
	}
	return found[0], nil
}

// Pin is the model's identity, recorded in a vault's header: the SHA-256
// of this text, one line each, every value as in the manifest:
//
//	compartment-model-pin v1
//	weights <sha256 of the weights file, lower-case hex>
//	tokenizer <sha256 of tokenizer.json, lower-case hex>
//	pooling <cls|mean>
//	query_prefix <the prefix, Go-quoted>
//
// So two models share a pin exactly when they run the same bytes and turn
// the same outputs into vectors the same way; the name, licence and URLs
// are left out, and renaming a model keeps its vectors valid. Part of the
// vault format: do not change.
func (m *Manifest) Pin() ([32]byte, error) {
	weights, err := m.file(RoleWeights)
	if err != nil {
		return [32]byte{}, err
	}
	tok, err := m.file(RoleTokenizer)
	if err != nil {
		return [32]byte{}, err
	}
	text := "compartment-model-pin v1\n" +
		"weights " + strings.ToLower(weights.SHA256) + "\n" +
		"tokenizer " + strings.ToLower(tok.SHA256) + "\n" +
		"pooling " + m.Pooling + "\n" +
		"query_prefix " + strconv.Quote(m.QueryPrefix) + "\n"
	return sha256.Sum256([]byte(text)), nil
}

// Verify hashes every file in dir against the manifest. A missing file,
// a wrong size or a wrong hash is an error wrapping [ErrManifest].
func (m *Manifest) Verify(dir string) error {
	for _, f := range m.Files {
		sum, size, err := hashFile(filepath.Join(dir, f.Path))
		if err != nil {
			return fmt.Errorf("%w: model %s: %v", ErrManifest, m.Name, err)
		}
		if f.Size > 0 && size != f.Size {
			return fmt.Errorf("%w: model %s: %s is %d bytes, manifest says %d", ErrManifest, m.Name, f.Path, size, f.Size)
		}
		if !strings.EqualFold(sum, f.SHA256) {
			return fmt.Errorf("%w: model %s: %s has sha256 %s, manifest says %s", ErrManifest, m.Name, f.Path, sum, f.SHA256)
		}
	}
	return nil
}

// hashFile returns the lower-case hex SHA-256 and the size of a file.
func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// validModelName keeps model names usable as directory names.
func validModelName(name string) bool {
	if name == "" || len(name) > 100 || name[0] == '.' || name[0] == '-' {
		return false
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			r == '.' || r == '_' || r == '-'
		if !ok {
			return false
		}
	}
	return true
}

// FormatPin writes a pin as lower-case hex, the way every command prints it.
func FormatPin(pin [32]byte) string { return hex.EncodeToString(pin[:]) }

// ErrPinMismatch marks a vault opened with a model other than the one its
// vectors were made with.
var ErrPinMismatch = errors.New("embed: model does not match the vault's pin")

// PinMismatch is the error a vault returns when its header pins vaultSHA
// (the model called vaultName) but the encoder at hand is enc. It wraps
// [ErrPinMismatch] and tells the user how to move the vault to enc.
func PinMismatch(vaultName string, vaultSHA [32]byte, enc ModelInfo) error {
	return fmt.Errorf("%w: the vault's vectors come from %q (sha256 %s) but the loaded model is %q (sha256 %s); "+
		"vectors of different models cannot be compared: load %q again, or run `compartment reindex --re-embed` "+
		"to re-embed every memory with %q",
		ErrPinMismatch, vaultName, shortPin(vaultSHA), enc.Name, shortPin(enc.SHA256), vaultName, enc.Name)
}

// CheckPin returns nil when enc is the model the vault pins, else
// [PinMismatch].
func CheckPin(vaultName string, vaultSHA [32]byte, enc ModelInfo) error {
	if vaultSHA == enc.SHA256 {
		return nil
	}
	return PinMismatch(vaultName, vaultSHA, enc)
}

// shortPin is enough of a pin for a person to compare by eye.
func shortPin(pin [32]byte) string { return FormatPin(pin)[:16] }
