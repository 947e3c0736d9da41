package embed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ORTVersion is the ONNX Runtime release the ONNX backend is built for
// (github.com/yalue/onnxruntime_go v1.27.0).
const ORTVersion = "1.24.1"

// ortLibName is the file scripts/setup.d/30-onnxruntime.sh installs.
const ortLibName = "libonnxruntime.so." + ORTVersion

// EnvORTLib names the ONNX Runtime shared library to use; it wins over
// every other location.
const EnvORTLib = "COMPARTMENT_ORT_LIB"

// ErrNoRuntime means the ONNX Runtime shared library could not be found or
// loaded. Only ONNX models need it; the bundled static model never does.
var ErrNoRuntime = errors.New("embed: ONNX Runtime is not available")

// ortLibCandidates lists where the library is looked for, in order:
// $COMPARTMENT_ORT_LIB, the caller's setting, ~/.compartment/lib, then
// beside the executable (bin/compartment in a checkout finds the
// checkout's .cache/lib). An explicit env value or setting is the only
// candidate when given, so a typo fails loudly instead of silently
// loading another copy.
func ortLibCandidates(setting string) []string {
	if env := os.Getenv(EnvORTLib); env != "" {
		return []string{env}
	}
	if setting != "" {
		return []string{setting}
	}
	var dirs []string
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".compartment", "lib"))
	}
	if exe, err := os.Executable(); err == nil {
		exeDir := filepath.Dir(exe)
		dirs = append(dirs, exeDir, filepath.Join(exeDir, "..", "lib"), filepath.Join(exeDir, "..", ".cache", "lib"))
	}
	var out []string
	for _, d := range dirs {
		out = append(out, filepath.Join(d, ortLibName), filepath.Join(d, "libonnxruntime.so.1"))
	}
	return out
}

// findORTLib returns the first candidate that exists.
func findORTLib(setting string) (string, error) {
	candidates := ortLibCandidates(setting)
	for _, c := range candidates {
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			return c, nil
		}
	}
	return "", fmt.Errorf("%w: %s not found (looked in %s); run `make setup` in the compartment "+
		"checkout, or set %s to the path of an ONNX Runtime %s libonnxruntime.so",
		ErrNoRuntime, ortLibName, strings.Join(candidates, ", "), EnvORTLib, ORTVersion)
}

// FindRuntimeLibrary is the ONNX Runtime library this process would load
// ($COMPARTMENT_ORT_LIB, ~/.compartment/lib, beside the executable), for
// packing it into an airgap bundle.
func FindRuntimeLibrary() (string, error) { return findORTLib("") }

// RuntimeLibraryName is the file name the library is installed under.
const RuntimeLibraryName = ortLibName
