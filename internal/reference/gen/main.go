// Command gen builds the reference facts (internal/reference/facts.jsonl.gz)
// from the Debian packages pinned in packages.lock. `make facts` runs it.
//
// Every package is fetched with `apt-get download name=version` into the
// cache directory (unless a .deb is already there), its SHA-256 checked
// against the lock, and unpacked with `dpkg-deb -x`. The facts are read only
// from the unpacked files, never from the machine the generator runs on, so
// the output is the same byte for byte wherever it is rebuilt.
//
// This program is not part of the compartment binary: only its output is.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// fact is one line of the output. The field names are part of the format
// read by internal/reference.
type fact struct {
	Text   string `json:"text"`
	Source string `json:"source"`
	Topic  string `json:"topic"`
}

// pkg is one pinned Debian package, unpacked under dir.
type pkg struct {
	name, version, sha256 string
	dir                   string
}

// source names a file of a package the way a fact cites it:
// "Debian netbase 6.4, /etc/services".
func (p pkg) source(path string) string {
	return fmt.Sprintf("Debian %s %s, %s", p.name, p.version, path)
}

// file reads a file of the unpacked package.
func (p pkg) file(path string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(p.dir, path))
	if err != nil {
		return nil, fmt.Errorf("gen: %s %s: %w", p.name, path, err)
	}
	return b, nil
}

func main() {
	lock := flag.String("lock", "internal/reference/gen/packages.lock", "pinned packages")
	cache := flag.String("cache", ".cache/facts", "where .deb files are downloaded and unpacked")
	out := flag.String("out", "internal/reference/facts.jsonl.gz", "output file")
	flag.Parse()
	if err := run(*lock, *cache, *out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(lockPath, cache, out string) error {
	pkgs, err := readLock(lockPath)
	if err != nil {
		return err
	}
	for _, p := range pkgs {
		if err := fetch(p, cache); err != nil {
			return err
		}
	}
	facts, err := collect(pkgs)
	if err != nil {
		return err
	}
	data, err := encode(facts)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return fmt.Errorf("gen: write %s: %w", out, err)
	}
	// The digest of the uncompressed lines is the pack's version; a test
	// keeps the committed file true to it.
	digest := filepath.Join(filepath.Dir(out), "facts.sha256")
	if err := os.WriteFile(digest, []byte(plainDigest(facts)+"\n"), 0o644); err != nil {
		return fmt.Errorf("gen: write %s: %w", digest, err)
	}
	topics := map[string]int{}
	for _, f := range facts {
		topics[f.Topic]++
	}
	fmt.Printf("%d facts written to %s (%d bytes)\n", len(facts), out, len(data))
	for _, t := range slices.Sorted(maps.Keys(topics)) {
		fmt.Printf("  %-10s %5d\n", t, topics[t])
	}
	return nil
}

// readLock parses "name version sha256" lines; # starts a comment.
func readLock(path string) (map[string]*pkg, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("gen: read lock: %w", err)
	}
	pkgs := map[string]*pkg{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 || len(f[2]) != 64 {
			return nil, fmt.Errorf("gen: %s line %d: want \"name version sha256\"", path, i+1)
		}
		pkgs[f[0]] = &pkg{name: f[0], version: f[1], sha256: f[2]}
	}
	return pkgs, nil
}

// fetch makes sure the pinned .deb is in cache with the locked hash and
// unpacks it afresh into cache/x/<name>.
func fetch(p *pkg, cache string) error {
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	deb, err := findDeb(p, cache)
	if err != nil {
		return err
	}
	if deb == "" {
		cmd := exec.Command("apt-get", "download", "-q", p.name+"="+p.version)
		cmd.Dir, cmd.Stdout, cmd.Stderr = cache, os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("gen: apt-get download %s=%s: %w (is the version still in the archive? run apt-get update)", p.name, p.version, err)
		}
		if deb, err = findDeb(p, cache); err != nil || deb == "" {
			return fmt.Errorf("gen: %s=%s: downloaded, but no matching .deb in %s", p.name, p.version, cache)
		}
	}
	b, err := os.ReadFile(deb)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != p.sha256 {
		return fmt.Errorf("gen: %s has sha256 %s, the lock says %s: refusing it", deb, got, p.sha256)
	}
	p.dir = filepath.Join(cache, "x", p.name)
	if err := os.RemoveAll(p.dir); err != nil {
		return err
	}
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return err
	}
	if out, err := exec.Command("dpkg-deb", "-x", deb, p.dir).CombinedOutput(); err != nil {
		return fmt.Errorf("gen: dpkg-deb -x %s: %v: %s", deb, err, out)
	}
	return nil
}

// findDeb returns the cached .deb of p's pinned version, or "".
func findDeb(p *pkg, cache string) (string, error) {
	// apt writes an epoch's colon as %3a in file names.
	ver := strings.ReplaceAll(p.version, ":", "%3a")
	matches, err := filepath.Glob(filepath.Join(cache, p.name+"_"+ver+"_*.deb"))
	if err != nil || len(matches) == 0 {
		return "", err
	}
	return matches[0], nil
}

// plainDigest is the SHA-256 (hex) of the uncompressed JSON lines.
func plainDigest(facts []fact) string {
	plain, _ := jsonLines(facts)
	sum := sha256.Sum256(plain)
	return hex.EncodeToString(sum[:])
}

func jsonLines(facts []fact) ([]byte, error) {
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	for _, f := range facts {
		if err := enc.Encode(f); err != nil {
			return nil, err
		}
	}
	return plain.Bytes(), nil
}

// encode writes one JSON object per line, gzip-compressed with no name or
// time in the header, so equal facts give equal bytes.
func encode(facts []fact) ([]byte, error) {
	plain, err := jsonLines(facts)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(plain); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// lines yields the non-empty lines of b with comments (from marker on)
// removed; marker "" keeps the whole line.
func lines(b []byte, marker string) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if marker != "" {
			if i := strings.Index(l, marker); i >= 0 {
				l = l[:i]
			}
		}
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
