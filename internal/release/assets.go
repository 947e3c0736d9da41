package release

import (
	"bytes"
	_ "embed"
	"io"
)

// The install scripts that go into a bundle, kept as files so they can be
// read and checked with sh -n.
var (
	//go:embed install.sh
	installSh string
	//go:embed install.ps1
	installPS1 string
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
