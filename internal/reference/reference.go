package reference

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// Fact is one reference fact: a single claim, the file it was read from,
// and a topic (ports, mime, countries, ...).
type Fact struct {
	Text   string `json:"text"`
	Source string `json:"source"`
	Topic  string `json:"topic"`
}

//go:embed facts.jsonl.gz
var compressed []byte

var (
	once   sync.Once
	facts  []Fact
	digest string
	err    error
)

// Facts returns the embedded reference facts, in their generated order.
// The slice is shared: callers must not modify it.
func Facts() ([]Fact, error) {
	once.Do(func() { facts, digest, err = decode(compressed) })
	return facts, err
}

// Digest is the SHA-256 of the uncompressed facts (hex): the version of the
// pack, the same wherever it is rebuilt from the same pinned packages.
func Digest() (string, error) {
	_, err := Facts()
	return digest, err
}

// decode reads gzip'd JSON lines.
func decode(b []byte) ([]Fact, string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, "", fmt.Errorf("reference: open facts: %w", err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		return nil, "", fmt.Errorf("reference: read facts: %w", err)
	}
	sum := sha256.Sum256(plain)
	var out []Fact
	sc := bufio.NewScanner(bytes.NewReader(plain))
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for n := 1; sc.Scan(); n++ {
		var f Fact
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return nil, "", fmt.Errorf("reference: fact %d: %w", n, err)
		}
		out = append(out, f)
	}
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("reference: read facts: %w", err)
	}
	return out, hex.EncodeToString(sum[:]), nil
}
