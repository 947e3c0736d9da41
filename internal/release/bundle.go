package release

// An airgap bundle is a gzip'd tar with one top directory:
//
//	compartment-bundle/bin/compartment[.exe]   the program for the target
//	compartment-bundle/bin/compartment.sig     its signature, when it has one
//	compartment-bundle/bin/compartment-panel[.exe]  the desktop panel, where the target has one
//	compartment-bundle/lib/<file>              ONNX Runtime, where the target has it
//	compartment-bundle/models/<name>/...       extra embedding models
//	compartment-bundle/install.sh | install.ps1
//	compartment-bundle/INSTALL.txt
//	compartment-bundle/SHA256SUMS              every other file, relative to the top
//	compartment-bundle/SHA256SUMS.sig          its signature by the release key, when signed
//
// FORMAT.md section 9 has the signature and checksum formats.

import (
	"archive/tar"
	"compress/gzip"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// BundleTop is the one top-level directory of a bundle.
const BundleTop = "compartment-bundle"

// BundleOptions is what goes into a bundle.
type BundleOptions struct {
	GOOS, GOARCH string
	Binary       string            // the program for GOOS/GOARCH
	Signature    []byte            // its compartment.sig; nil for an unsigned build
	RuntimeLib   string            // ONNX Runtime library to include; "" for none
	Models       map[string]string // model name -> directory to include under models/
	Panel        string            // compartment-panel for the target; "" for none
	// SignKey, when set, signs SHA256SUMS (SHA256SUMS.sig): the release
	// key, so install.sh can check the whole bundle, not only the program.
	SignKey ed25519.PrivateKey
}

// BundleFile is one file written into a bundle.
type BundleFile struct {
	Name   string `json:"name"` // relative to the bundle's top directory
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// WriteBundle writes the bundle to out atomically (a temporary file renamed
// over out once complete) and returns what it holds.
func WriteBundle(out string, o BundleOptions) ([]BundleFile, error) {
	exe := "compartment"
	if o.GOOS == "windows" {
		exe = "compartment.exe"
	}
	type entry struct {
		name string
		src  string // file to copy, or
		data []byte // bytes to write
		mode int64
	}
	entries := []entry{{name: "bin/" + exe, src: o.Binary, mode: 0o755}}
	if o.Signature != nil {
		entries = append(entries, entry{name: "bin/compartment.sig", data: o.Signature, mode: 0o644})
	}
	if o.Panel != "" {
		entries = append(entries, entry{name: "bin/" + strings.Replace(exe, "compartment", "compartment-panel", 1), src: o.Panel, mode: 0o755})
	}
	if o.RuntimeLib != "" {
		entries = append(entries, entry{name: "lib/" + filepath.Base(o.RuntimeLib), src: o.RuntimeLib, mode: 0o644})
	}
	names := make([]string, 0, len(o.Models))
	for n := range o.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		err := filepath.WalkDir(o.Models[n], func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if !d.Type().IsRegular() {
				return fmt.Errorf("release: %s is not a regular file", p)
			}
			rel, err := filepath.Rel(o.Models[n], p)
			if err != nil {
				return err
			}
			entries = append(entries, entry{name: path.Join("models", n, filepath.ToSlash(rel)), src: p, mode: 0o644})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("release: bundle model %s: %w", n, err)
		}
	}
	if o.GOOS == "windows" {
		entries = append(entries, entry{name: "install.ps1", data: []byte(installPS1), mode: 0o644})
	} else {
		entries = append(entries, entry{name: "install.sh", data: []byte(installSh), mode: 0o755})
	}
	contents := BundleContents{Signed: o.Signature != nil, SumsSigned: o.SignKey != nil, Lib: o.RuntimeLib != "", Panel: o.Panel != "", Models: names}
	entries = append(entries, entry{name: "INSTALL.txt", data: []byte(BundleInstallText(o.GOOS, contents)), mode: 0o644})

	tmp, err := os.CreateTemp(filepath.Dir(out), ".bundle-*.tar.gz")
	if err != nil {
		return nil, fmt.Errorf("release: bundle: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	gz := gzip.NewWriter(tmp)
	tw := tar.NewWriter(gz)
	now := time.Now().UTC().Truncate(time.Second)
	dirs := map[string]bool{}
	sums := map[string]string{}
	var files []BundleFile
	for _, e := range entries {
		if err := writeDirs(tw, path.Dir(e.name), dirs, now); err != nil {
			return nil, err
		}
		f, err := writeEntry(tw, e.name, e.src, e.data, e.mode, now)
		if err != nil {
			return nil, err
		}
		sums[e.name] = f.SHA256
		files = append(files, f)
	}
	list := FormatSums(sums)
	if _, err := writeEntry(tw, "SHA256SUMS", "", list, 0o644, now); err != nil {
		return nil, err
	}
	if o.SignKey != nil {
		if _, err := writeEntry(tw, "SHA256SUMS.sig", "", SignSums(o.SignKey, list), 0o644, now); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("release: bundle: %w", err)
	}
	if err := gz.Close(); err != nil {
		return nil, fmt.Errorf("release: bundle: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return nil, fmt.Errorf("release: bundle: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("release: bundle: %w", err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return nil, fmt.Errorf("release: bundle: %w", err)
	}
	return files, nil
}

func writeDirs(tw *tar.Writer, dir string, done map[string]bool, mtime time.Time) error {
	if dir == "." || done[dir] {
		return nil
	}
	if err := writeDirs(tw, path.Dir(dir), done, mtime); err != nil {
		return err
	}
	done[dir] = true
	return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: BundleTop + "/" + dir + "/", Mode: 0o755, ModTime: mtime})
}

// writeEntry adds one regular file (from src, or data) and returns its
// checksum.
func writeEntry(tw *tar.Writer, name, src string, data []byte, mode int64, mtime time.Time) (BundleFile, error) {
	var r io.Reader
	size := int64(len(data))
	if src != "" {
		f, err := os.Open(src)
		if err != nil {
			return BundleFile{}, fmt.Errorf("release: bundle: %w", err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return BundleFile{}, fmt.Errorf("release: bundle: %w", err)
		}
		r, size = f, st.Size()
	} else {
		r = bytesReader(data)
	}
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: BundleTop + "/" + name, Mode: mode, Size: size, ModTime: mtime}
	if err := tw.WriteHeader(hdr); err != nil {
		return BundleFile{}, fmt.Errorf("release: bundle %s: %w", name, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tw, h), r)
	if err != nil {
		return BundleFile{}, fmt.Errorf("release: bundle %s: %w", name, err)
	}
	if n != size {
		return BundleFile{}, fmt.Errorf("release: bundle %s: changed while being read", name)
	}
	return BundleFile{Name: name, Size: size, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// Limits on what is read out of an archive someone hands us.
const (
	maxBinary  = 1 << 30
	maxMembers = 100000
)

// ErrNoBinary means an archive holds no compartment binary.
var ErrNoBinary = errors.New("release: no compartment binary in the archive")

// ExtractBinary takes the compartment binary and its compartment.sig out of
// a release archive (compartment/...) or an airgap bundle
// (compartment-bundle/bin/...) into dir, returning the binary's path and
// the signature (nil when the archive has none). Nothing else is written.
func ExtractBinary(archive, dir string) (string, []byte, error) {
	f, err := os.Open(archive)
	if err != nil {
		return "", nil, fmt.Errorf("release: %w", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return "", nil, fmt.Errorf("release: %s is not a .tar.gz: %w", archive, err)
	}
	tr := tar.NewReader(gz)
	binPath := ""
	var sig []byte
	for i := 0; ; i++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", nil, fmt.Errorf("release: read %s: %w", archive, err)
		}
		if i > maxMembers {
			return "", nil, fmt.Errorf("release: %s has more than %d entries; refusing it", archive, maxMembers)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		switch hdr.Name {
		case "compartment/compartment", "compartment/compartment.exe",
			BundleTop + "/bin/compartment", BundleTop + "/bin/compartment.exe":
			if binPath != "" {
				return "", nil, fmt.Errorf("release: %s holds more than one binary", archive)
			}
			if hdr.Size > maxBinary {
				return "", nil, fmt.Errorf("release: %s: binary of %d bytes is too large", archive, hdr.Size)
			}
			binPath = filepath.Join(dir, path.Base(hdr.Name))
			out, err := os.OpenFile(binPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
			if err != nil {
				return "", nil, fmt.Errorf("release: %w", err)
			}
			_, err = io.Copy(out, io.LimitReader(tr, maxBinary))
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return "", nil, fmt.Errorf("release: extract %s: %w", hdr.Name, err)
			}
		case "compartment/compartment.sig", BundleTop + "/bin/compartment.sig":
			if sig, err = io.ReadAll(io.LimitReader(tr, maxSigFile+1)); err != nil {
				return "", nil, fmt.Errorf("release: extract %s: %w", hdr.Name, err)
			}
		}
	}
	if binPath == "" {
		return "", nil, fmt.Errorf("%w %s", ErrNoBinary, archive)
	}
	return binPath, sig, nil
}

// ExtractPanel takes compartment-panel[.exe] out of a release archive
// (compartment/...) into dir; "" when the archive has none.
func ExtractPanel(archive, dir string) (string, error) {
	f, err := os.Open(archive)
	if err != nil {
		return "", fmt.Errorf("release: %w", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return "", fmt.Errorf("release: %s is not a .tar.gz: %w", archive, err)
	}
	tr := tar.NewReader(gz)
	for i := 0; i <= maxMembers; i++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("release: read %s: %w", archive, err)
		}
		if hdr.Typeflag != tar.TypeReg || (hdr.Name != "compartment/compartment-panel" && hdr.Name != "compartment/compartment-panel.exe") {
			continue
		}
		if hdr.Size > maxBinary {
			return "", fmt.Errorf("release: %s: panel of %d bytes is too large", archive, hdr.Size)
		}
		p := filepath.Join(dir, path.Base(hdr.Name))
		out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
		if err != nil {
			return "", fmt.Errorf("release: %w", err)
		}
		_, err = io.Copy(out, io.LimitReader(tr, maxBinary))
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", fmt.Errorf("release: extract %s: %w", hdr.Name, err)
		}
		return p, nil
	}
	return "", fmt.Errorf("release: %s has more than %d entries; refusing it", archive, maxMembers)
}
