package integrate

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzMerge feeds arbitrary files to every editor. A merge either refuses
// (the file is left as it was) or returns a file that decodes to the
// user's document plus our entry, keeps the user's bytes (inserting only,
// when there was no entry of ours), is stable under a second merge, and
// gives the user's document back when the entry is removed.
func FuzzMerge(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "golden", "*", "*.before"))
	for _, s := range seeds {
		b, _ := os.ReadFile(s)
		for i := range Clients {
			if filepath.Base(filepath.Dir(s)) == Clients[i].ID {
				f.Add(b, uint8(i))
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, which uint8) {
		c := &Clients[int(which)%len(Clients)]
		entry := c.Entry(goldenServer.Command, goldenServer.Args(c))
		orig := append([]byte(nil), src...)
		out, err := Merge(c.Format, src, c.Loc, entry)
		if string(src) != string(orig) {
			t.Fatal("merge modified its input")
		}
		if err != nil {
			return
		}
		before, err := decode(c.Format, src)
		if err != nil {
			t.Fatalf("merged a file that does not decode: %v", err)
		}
		after, err := decode(c.Format, out)
		if err != nil {
			t.Fatalf("merge produced a file that does not decode: %v\n%s", err, out)
		}
		want := withEntry(normalize(before), c.Loc, normalize(plain(entry)))
		if !reflect.DeepEqual(normalize(after), want) {
			t.Fatalf("merge changed the document beyond our entry:\n%s", out)
		}
		if old, _ := Lookup(c.Format, src, c.Loc); old == nil && len(bytes.TrimSpace(src)) > 0 && !isSubsequence(userBytes(c, src), out) {
			t.Fatalf("merge changed the user's bytes:\n%q\n%q", src, out)
		}
		again, err := Merge(c.Format, out, c.Loc, entry)
		if err != nil || string(again) != string(out) {
			t.Fatalf("second merge changed the file (%v)", err)
		}
		back, found, err := Remove(c.Format, out, c.Loc)
		if err != nil || !found {
			t.Fatalf("remove after merge: found %v, %v\n%s", found, err, out)
		}
		bv, err := decode(c.Format, back)
		if err != nil {
			t.Fatalf("remove produced a file that does not decode: %v", err)
		}
		if !reflect.DeepEqual(prune(normalize(bv)), prune(withEntry(normalize(before), c.Loc, nil))) {
			t.Fatalf("remove did not give back the document:\n%s", back)
		}
	})
}
