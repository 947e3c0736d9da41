package release

import (
	"strings"
	"testing"
)

// TestBundleInstallTextSaysOnlyWhatItHolds: #28. The install paragraph
// of INSTALL.txt promises no signature check for an unsigned bundle and
// no library or models where the bundle has none; with them, it names
// where each goes.
func TestBundleInstallTextSaysOnlyWhatItHolds(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		bare := oneLine(BundleInstallText(goos, BundleContents{}))
		for _, absent := range []string{"the signatures", "the library", "the models to", "the models in"} {
			if strings.Contains(bare, absent) {
				t.Errorf("%s: a bundle of the program alone says %q:\n%s", goos, absent, bare)
			}
		}
		if !strings.Contains(bare, "checks every checksum") {
			t.Errorf("%s: the bundle's checksums go unmentioned:\n%s", goos, bare)
		}
		full := oneLine(BundleInstallText(goos, BundleContents{Signed: true, SumsSigned: true, Lib: true, Models: []string{"bge-small-en-v1.5"}}))
		want := []string{"checks every checksum and the signatures", "models"}
		if goos != "windows" {
			want = append(want, "the library in ~/.compartment/lib", "the models in ~/.compartment/models")
		}
		for _, w := range want {
			if !strings.Contains(full, w) {
				t.Errorf("%s: a full bundle does not say %q:\n%s", goos, w, full)
			}
		}
	}
}

// oneLine joins a text's lines and spaces, so a phrase is found wherever
// the text wraps.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
