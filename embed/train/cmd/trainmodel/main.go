// Command trainmodel builds the bundled static embedding model from the
// corpus cache (scripts/model-corpus.sh) and writes the model file and its
// SHA-256 beside it. `make model` runs it through scripts/model.sh.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/compartment/compartment/embed/train"
)

func main() {
	cache := flag.String("cache", ".cache/model-corpus", "corpus cache directory")
	out := flag.String("out", "embed/model/static-v1.bin", "model file to write")
	flag.Parse()
	log.SetFlags(0)
	data, err := train.Build(train.DefaultConfig(*cache), func(f string, a ...any) { log.Printf(f, a...) })
	if err != nil {
		log.Fatal(err)
	}
	b, err := data.MarshalBinary()
	if err != nil {
		log.Fatal(err)
	}
	sum := sha256.Sum256(b)
	hexSum := hex.EncodeToString(sum[:])
	if err := writeFile(*out, b); err != nil {
		log.Fatal(err)
	}
	sumFile := strings.TrimSuffix(*out, filepath.Ext(*out)) + ".sha256"
	if err := writeFile(sumFile, []byte(hexSum+"\n")); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s  %s (%d bytes)\n", hexSum, *out, len(b))
}

// writeFile replaces path atomically: temporary file, fsync, rename.
func writeFile(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
