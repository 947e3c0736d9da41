package vault

import (
	"bufio"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/compartment/compartment/vaultfmt"
)

// PackMeta names a pack to sign: its name, its version ("" for today's
// date) and the model its memories were embedded with ("" when the
// memories carry no vectors).
type PackMeta struct {
	Name, Version, Model string
}

// ErrEmptyPack refuses a pack with no memories.
var ErrEmptyPack = errors.New("there are no memories to put in the pack")

// maxPackLine bounds one line of a pack's JSONL source.
const maxPackLine = 64 << 10

// ReadPackJSONL reads the memories of a pack source: one JSON object per
// line ({"text", "source", ...}, as [DecodePackEntry] reads it), blank
// lines skipped. An error names the line.
func ReadPackJSONL(r io.Reader, name string) ([]PackMemory, error) {
	var mems []PackMemory
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, maxPackLine), maxPackLine)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		m, err := DecodePackEntry(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, n, err)
		}
		mems = append(mems, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return mems, nil
}

// SignPack encodes mems as a pack signed by key and returns its bytes and
// the version it was given.
func SignPack(mems []PackMemory, meta PackMeta, key ed25519.PrivateKey) ([]byte, string, error) {
	if len(mems) == 0 {
		return nil, "", ErrEmptyPack
	}
	entries, err := EncodePackEntries(mems)
	if err != nil {
		return nil, "", err
	}
	now := time.Now().UTC()
	version := meta.Version
	if version == "" {
		version = now.Format("2006.01.02")
	}
	b, err := vaultfmt.EncodePack(vaultfmt.PackManifest{Name: meta.Name, Version: version, Created: now, Model: meta.Model}, entries, key)
	if err != nil {
		return nil, "", err
	}
	return b, version, nil
}

// PackRefusal turns a refused pack (file, its bytes b) into one sentence
// the user can act on.
func PackRefusal(file string, b []byte, err error) error {
	switch {
	case errors.Is(err, vaultfmt.ErrPackUntrusted):
		m, _ := vaultfmt.ReadPackManifest(b)
		return fmt.Errorf("refused %s: it is signed by key %x, which you do not trust; if you know it is the author's, run `compartment pack trust %x` or pass --trusted-key (nothing was installed)",
			file, []byte(m.Author), []byte(m.Author))
	case errors.Is(err, vaultfmt.ErrPackCorrupt):
		return fmt.Errorf("refused %s: the file is damaged, truncated or was changed after it was signed (nothing was installed): %w", file, err)
	}
	return fmt.Errorf("refused %s: %w (nothing was installed)", file, err)
}
