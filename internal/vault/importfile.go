package vault

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ImportInput is what `import FILE` reads: the file (or stdin for "-"),
// how many lines it holds when that can be known beforehand, and the
// source given to lines that name none.
type ImportInput struct {
	R      io.Reader
	Lines  int    // 0 for a stream (a pipe, a device, stdin): read once, not counted
	Source string // "imported from FILE" unless source was given
	Close  func() error
}

// OpenImport opens path for [Vault.Import] ("-" is stdin). Only a
// regular file can be read twice, so only its lines are counted first
// (for a progress bar with a total); a pipe (/dev/stdin, <(cat f)) or a
// device is read once, as a stream.
func OpenImport(path string, stdin io.Reader, source string) (ImportInput, error) {
	if source == "" {
		source = "imported from " + filepath.Base(path)
	}
	in := ImportInput{R: stdin, Source: source, Close: func() error { return nil }}
	if path == "-" {
		return in, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return in, fmt.Errorf("import: %w", err)
	}
	in.R, in.Close = f, f.Close
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		in.Lines = countLines(f)
	}
	return in, nil
}

// countLines counts the newlines of a regular file, reading it in small
// pieces, and rewinds it; what it read so far on an error.
func countLines(f *os.File) int {
	defer f.Seek(0, io.SeekStart)
	buf := make([]byte, 64<<10)
	n := 0
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err != nil {
			return n
		}
	}
}
