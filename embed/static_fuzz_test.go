package embed

import (
	"errors"
	"testing"
)

// FuzzStaticModelBytes feeds arbitrary bytes to the model parser: it must
// either refuse them with ErrBadStaticModel or give an encoder whose vectors
// have the declared dimension.
func FuzzStaticModelBytes(f *testing.F) {
	good, err := tinyModel().MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	v2 := tinyModel()
	v2.IDWeight = 0.5
	if good2, err := v2.MarshalBinary(); err == nil {
		f.Add(good2)
	}
	f.Add(good[:staticHeaderSize])
	f.Add([]byte(staticMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		enc, err := OpenStaticBytes(b, "fuzz", [32]byte{}, Calibration{})
		if err != nil {
			if !errors.Is(err, ErrBadStaticModel) {
				t.Fatalf("error %v is not ErrBadStaticModel", err)
			}
			return
		}
		for _, text := range []string{"cat dog", "unknownword", "port 5433", ""} {
			v, err := enc.EmbedQuery(text)
			if err != nil || len(v) != enc.Info().Dim {
				t.Fatalf("%q: len %d, err %v", text, len(v), err)
			}
		}
	})
}
