package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compartment/compartment/internal/release"
)

// TestAirgapBundleInstallsOffline builds a bundle with a model in it, then
// installs and uses it inside a network namespace with no interface up and
// an empty HOME: the kernel guarantees nothing on the way reaches a
// network. `integrate claude --dry-run` runs too when this build has the
// integrate command.
func TestAirgapBundleInstallsOffline(t *testing.T) {
	t.Parallel()
	if err := exec.Command("unshare", "-rn", "true").Run(); err != nil {
		t.Skipf("cannot make a network namespace here (unshare -rn: %v); the offline install is not tested", err)
	}
	bin, _ := releaseBinary(t)
	work := t.TempDir()
	bundle := filepath.Join(work, "bundle.tar.gz")
	model, err := filepath.Abs(filepath.Join("..", "..", "embed", "testdata", "onnx"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "setup", "airgap-bundle", "--with-model", model, "--release-key", releaseKeyFile(t), "--json", bundle)
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(work, "builder"))
	// The ONNX Runtime library make setup installed, when there is one,
	// goes into the bundle and must load on the other side.
	lib, _ := filepath.Abs(filepath.Join("..", "..", ".cache", "lib", "libonnxruntime.so.1.24.1"))
	withLib := false
	if _, err := os.Stat(lib); err == nil && goosArch() == "linux/amd64" {
		cmd.Env = append(cmd.Env, "COMPARTMENT_ORT_LIB="+lib)
		withLib = true
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("airgap-bundle: %v\n%s", err, out)
	}
	var rep struct {
		Signed     bool `json:"signed"`
		SumsSigned bool `json:"sums_signed"`
		Files      []struct {
			Name string `json:"name"`
		} `json:"files"`
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("airgap-bundle --json: %v\n%s", err, out)
	}
	names := map[string]bool{}
	for _, f := range rep.Files {
		names[f.Name] = true
	}
	for _, want := range []string{"bin/compartment", "bin/compartment.sig", "install.sh", "INSTALL.txt",
		"models/tiny-bert-random/manifest.json", "models/tiny-bert-random/tiny-bert.onnx"} {
		if !names[want] {
			t.Fatalf("bundle lacks %s: %v", want, rep.Files)
		}
	}
	if withLib && !names["lib/libonnxruntime.so.1.24.1"] {
		t.Fatalf("bundle lacks the ONNX Runtime library: %v", rep.Notes)
	}
	if !rep.Signed || !rep.SumsSigned {
		t.Fatalf("bundle of a signed binary is not signed: %v", rep.Notes)
	}

	home := filepath.Join(work, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	script := `set -e
if command -v ip >/dev/null; then
	up=$(ip -o link show up)
	[ -z "$up" ] || { echo "an interface is up: $up"; exit 1; }
fi
cd "$HOME"
tar -xzf "$BUNDLE"
sh compartment-bundle/install.sh
compartment init --no-app
compartment store "The spare key is under the blue flowerpot" --source airgap-test
compartment search "where is the spare key"
if [ "$WITH_LIB" = 1 ]; then
	compartment embed --model tiny-bert-random --json "an ONNX model, offline" | grep -q '"dim": 32'
	echo "onnx: the bundled runtime and model embed"
fi
if compartment integrate --help >/dev/null 2>&1; then
	compartment integrate claude --dry-run
	echo "integrate: ran"
else
	echo "integrate: not in this build"
fi
`
	run := exec.Command("unshare", "-rn", "sh", "-c", script)
	run.Env = []string{"HOME=" + home, "PATH=" + filepath.Join(home, ".local", "bin") + ":/usr/sbin:/usr/bin:/sbin:/bin",
		"BUNDLE=" + bundle, "WITH_LIB=" + map[bool]string{true: "1", false: "0"}[withLib], "COMPARTMENT_PASSPHRASE=correct horse battery staple", "LANG=C.UTF-8",
		"COMPARTMENT_EMBED_DAEMON=0"} // no daemon outliving the test
	out, err = run.CombinedOutput()
	t.Logf("offline install:\n%s", out)
	if err != nil {
		t.Fatalf("offline install failed: %v", err)
	}
	if !strings.Contains(string(out), "The spare key is under the blue flowerpot") {
		t.Fatal("search after the offline install did not find the stored memory")
	}
	for _, p := range []string{".local/bin/compartment", ".local/bin/compartment.sig", ".compartment/memory.vault",
		".compartment/models/tiny-bert-random/manifest.json"} {
		if _, err := os.Stat(filepath.Join(home, p)); err != nil {
			t.Fatalf("after install: %v", err)
		}
	}
}

// TestAirgapBundleRefusesForeignTargetWithoutRelease: this program can
// only bundle itself; another system's binary must come from a verified
// release directory.
func TestAirgapBundleRefusesForeignTargetWithoutRelease(t *testing.T) {
	bin, _ := releaseBinary(t)
	other := "windows"
	if goosArch() == "windows/amd64" {
		other = "linux"
	}
	out, err := exec.Command(bin, "setup", "airgap-bundle", "--os", other, "--arch", "amd64",
		filepath.Join(t.TempDir(), "b.tar.gz")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--release DIR") {
		t.Fatalf("want a refusal naming --release, got %v\n%s", err, out)
	}
}

// TestAirgapBundleFromRelease takes the binary from a release directory:
// accepted when SHA256SUMS is signed by a trusted key and the archive
// matches it, refused when the archive or the list was changed.
func TestAirgapBundleFromRelease(t *testing.T) {
	t.Parallel()
	bin, priv := releaseBinary(t)
	rel := t.TempDir()
	target := strings.ReplaceAll(goosArch(), "/", "_")
	archive := filepath.Join(rel, "compartment_"+testReleaseVersion+"_"+target+".tar.gz")
	tarCmd := exec.Command("tar", "-czf", archive, "--transform", "s|^bin|compartment|", "-C", filepath.Dir(filepath.Dir(bin)), "bin/compartment", "bin/compartment.sig")
	if out, err := tarCmd.CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	sum, _, err := release.FileSHA256(archive)
	if err != nil {
		t.Fatal(err)
	}
	sums := release.FormatSums(map[string]string{filepath.Base(archive): sum})
	os.WriteFile(filepath.Join(rel, "SHA256SUMS"), sums, 0o644)
	os.WriteFile(filepath.Join(rel, "SHA256SUMS.sig"), release.SignSums(priv, sums), 0o644)

	bundle := func() (string, error) {
		out, err := exec.Command(bin, "setup", "airgap-bundle", "--release", rel, filepath.Join(t.TempDir(), "b.tar.gz")).CombinedOutput()
		return string(out), err
	}
	if out, err := bundle(); err != nil || !strings.Contains(out, "binary from "+filepath.Base(archive)) {
		t.Fatalf("bundle from a release: %v\n%s", err, out)
	}
	// A changed list no longer matches its signature.
	os.WriteFile(filepath.Join(rel, "SHA256SUMS"), append(sums, sums...), 0o644)
	if out, err := bundle(); err == nil || !strings.Contains(out, "signature does not verify") {
		t.Fatalf("changed SHA256SUMS: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(rel, "SHA256SUMS"), sums, 0o644)
	// A changed archive no longer matches the list.
	f, _ := os.OpenFile(archive, os.O_WRONLY|os.O_APPEND, 0)
	f.Write([]byte("x"))
	f.Close()
	if out, err := bundle(); err == nil || !strings.Contains(out, "SHA256SUMS says") {
		t.Fatalf("changed archive: %v\n%s", err, out)
	}
}
