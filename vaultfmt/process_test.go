package vaultfmt

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Child processes are this test binary re-executed with VAULTFMT_CHILD set;
// TestMain sends them to runChild instead of the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("VAULTFMT_CHILD"); mode != "" {
		if err := runChild(mode); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runChild(mode string) error {
	key, err := hex.DecodeString(os.Getenv("VAULTFMT_KEY"))
	if err != nil {
		return err
	}
	c := newCollector()
	v, err := Open(os.Getenv("VAULTFMT_PATH"), Unlock{MasterKey: key}, c)
	if err != nil {
		return err
	}
	defer v.Close()
	switch mode {
	case "append":
		return childAppendLoop(v)
	case "writer":
		return childWriter(v, c)
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// childAppendLoop appends one ~300-byte item at a time, printing each id
// once Append has returned (acknowledged), and compacts now and then so
// kills also land inside compactions. It runs until killed.
func childAppendLoop(v *Vault) error {
	body := []byte(strings.Repeat("an acknowledged memory must survive kill -9. ", 7))
	for i := 1; ; i++ {
		var id ID
		randomID(&id)
		if err := v.Append([]Change{{Op: OpPut, Item: Item{ID: id, Kind: 1, Body: body}}}); err != nil {
			return err
		}
		if _, err := fmt.Printf("ack %x\n", id); err != nil {
			return err
		}
		if i%5 == 0 {
			if err := v.Compact(); err != nil {
				return err
			}
		}
	}
}

// childWriter appends its share, says done, waits for the parent's go,
// refreshes and reports what it sees.
func childWriter(v *Vault, c *collector) error {
	n, _ := strconv.Atoi(os.Getenv("VAULTFMT_N"))
	tag := os.Getenv("VAULTFMT_TAG")
	for i := 0; i < n; i++ {
		ch := Change{Op: OpPut, Item: Item{ID: taggedID(tag, i), Kind: 2, Body: []byte(fmt.Sprintf("%s-%d", tag, i))}}
		if err := v.Append([]Change{ch}); err != nil {
			return err
		}
		if err := c.Apply(ch); err != nil {
			return err
		}
		if i%20 == 19 {
			if err := v.Compact(); err != nil {
				return err
			}
		}
	}
	fmt.Println("done")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return err
	}
	if err := v.Refresh(); err != nil {
		return err
	}
	for id, it := range c.items {
		if string(it.Body) != bodyFor(id) {
			return fmt.Errorf("item %x has body %q", id, it.Body)
		}
	}
	fmt.Printf("seen %d resets %d\n", len(c.items), c.resets)
	return nil
}

func randomID(id *ID) { copy(id[:], randomBody(16)) }

func taggedID(tag string, i int) ID {
	var id ID
	copy(id[:], tag)
	id[15], id[14] = byte(i), byte(i>>8)
	return id
}

func bodyFor(id ID) string {
	return fmt.Sprintf("%s-%d", strings.TrimRight(string(id[:1]), "\x00"), int(id[15])|int(id[14])<<8)
}

func childCmd(t *testing.T, mode, path string, key []byte, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VAULTFMT_CHILD="+mode, "VAULTFMT_PATH="+path, "VAULTFMT_KEY="+hex.EncodeToString(key))
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	return cmd
}

func longRun() bool { return os.Getenv("COMPARTMENT_LONG") == "1" }

// TestCrashKill9: a child appending in a loop is killed with SIGKILL at a
// random moment, round after round on the same vault; every id it
// acknowledged is there afterwards and the vault opens every time.
func TestCrashKill9(t *testing.T) {
	rounds := 6
	if longRun() {
		rounds = 150
	}
	path, v, _ := newTestVault(t)
	key := v.MasterKey()
	v.Close()
	acked := map[ID]bool{}
	torn, midCompaction := 0, 0
	for r := 0; r < rounds; r++ {
		got := runAndKill(t, childCmd(t, "append", path, key), time.Duration(5+rand.IntN(120))*time.Millisecond)
		for _, id := range got {
			acked[id] = true
		}
		c := newCollector()
		v, err := Open(path, Unlock{MasterKey: key}, c)
		if err != nil {
			t.Fatalf("round %d: open after kill: %v", r, err)
		}
		if v.Torn() != nil {
			torn++
		}
		v.Close()
		if _, err := os.Stat(path + ".tmp"); err == nil {
			midCompaction++ // killed inside a compaction; the next one removes it
		}
		for id := range acked {
			if _, ok := c.items[id]; !ok {
				t.Fatalf("round %d: acknowledged id %x lost (%d acked, %d present)", r, id, len(acked), len(c.items))
			}
		}
	}
	if len(acked) == 0 {
		t.Fatal("the child never acknowledged a write")
	}
	// SIGKILL cannot split a pwrite, so torn tails are rare here; the
	// truncation tests cover them byte by byte.
	t.Logf("%d rounds, %d acknowledged ids all present; %d kills inside a compaction, %d torn tails", rounds, len(acked), midCompaction, torn)
}

// runAndKill starts cmd, lets it run for d after its first acknowledgement,
// kills it with SIGKILL and returns the ids it acknowledged.
func runAndKill(t *testing.T, cmd *exec.Cmd, d time.Duration) []ID {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var ids []ID
	take := func(line string) {
		var id ID
		if b, err := hex.DecodeString(strings.TrimPrefix(line, "ack ")); err == nil && len(b) == 16 {
			copy(id[:], b)
			ids = append(ids, id)
		}
	}
	select {
	case line, ok := <-lines:
		if ok {
			take(line)
		}
	case <-time.After(30 * time.Second):
		t.Log("child did not acknowledge within 30 s")
	}
	time.Sleep(d)
	_ = cmd.Process.Kill()
	for line := range lines {
		take(line)
	}
	_ = cmd.Wait()
	return ids
}

// TestTwoProcessesAppend: two processes append concurrently (and compact
// now and then); after Refresh each sees every item, and so does a fresh
// open.
func TestTwoProcessesAppend(t *testing.T) {
	n := 60
	if longRun() {
		n = 600
	}
	path, v, _ := newTestVault(t)
	key := v.MasterKey()
	v.Close()
	type child struct {
		cmd *exec.Cmd
		in  io.WriteCloser
		out *bufio.Reader
	}
	var kids []child
	for _, tag := range []string{"A", "B"} {
		cmd := childCmd(t, "writer", path, key, "VAULTFMT_TAG="+tag, "VAULTFMT_N="+strconv.Itoa(n))
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		kids = append(kids, child{cmd, in, bufio.NewReader(out)})
	}
	for i, k := range kids {
		if line, err := k.out.ReadString('\n'); err != nil || line != "done\n" {
			t.Fatalf("child %d: %q, %v", i, line, err)
		}
	}
	for i, k := range kids {
		fmt.Fprintln(k.in, "go")
		line, err := k.out.ReadString('\n')
		var seen, resets int
		if _, serr := fmt.Sscanf(line, "seen %d resets %d", &seen, &resets); err != nil || serr != nil || seen != 2*n {
			t.Fatalf("child %d: %q, %v %v (want %d items)", i, line, err, serr, 2*n)
		}
		if err := k.cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v", i, err)
		}
	}
	_, c := reopen(t, path)
	if len(c.items) != 2*n {
		t.Fatalf("fresh open sees %d items, want %d", len(c.items), 2*n)
	}
}

// TestRefreshAfterOtherCompacts: two handles on one file (each with its own
// lock descriptor, as two processes would have). When one compacts, the
// other's Refresh resets its handler and replays; Append catches up first.
func TestRefreshAfterOtherCompacts(t *testing.T) {
	path, a, ca := newTestVault(t)
	cb := newCollector()
	b, err := Open(path, Unlock{Passphrase: testPass}, cb)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	mustAppend(t, a, ca, put(1, "one"), put(2, "two"), put(3, "three"))
	if err := b.Refresh(); err != nil {
		t.Fatal(err)
	}
	sameItems(t, cb, ca)
	if cb.resets != 0 {
		t.Fatal("plain appends caused a reset")
	}
	mustAppend(t, b, cb, del(2))
	if err := b.Compact(); err != nil {
		t.Fatal(err)
	}
	if err := a.Refresh(); err != nil {
		t.Fatal(err)
	}
	if ca.resets != 1 {
		t.Fatalf("handler reset %d times, want 1", ca.resets)
	}
	sameItems(t, ca, cb)
	// b appends; a's Append first applies b's frame, then writes its own.
	mustAppend(t, b, cb, put(4, "four"))
	mustAppend(t, a, ca, put(5, "five"))
	if _, ok := ca.items[testID(4)]; !ok {
		t.Fatal("Append did not catch up with the other writer first")
	}
	if err := b.Refresh(); err != nil {
		t.Fatal(err)
	}
	sameItems(t, cb, ca)
	if a.Stats().Epoch != 1 || b.Stats().Epoch != 1 || a.Stats().JournalFrames != 2 {
		t.Fatalf("stats a %+v b %+v", a.Stats(), b.Stats())
	}
	// Nothing changed: Refresh is a no-op and no reset happens.
	if err := a.Refresh(); err != nil || ca.resets != 1 {
		t.Fatalf("idle refresh: %v, resets %d", err, ca.resets)
	}
}

// TestRefreshSeesWriteOverTornTail: a handle that opened with a torn tail
// must notice when another writer cut that tail and appended a frame of
// exactly the same length, so the file's size did not change.
func TestRefreshSeesWriteOverTornTail(t *testing.T) {
	path, orig, _ := tamperFixture(t)
	l := layoutOf(t, orig)
	last := l.journal[len(l.journal)-1] // put(6, "foxtrot"): 186+7 bytes
	const golf = "golf"
	cut := last.off + 186 + int64(len(golf)) // the torn tail is as long as the frame B will write
	writeFile(t, path, orig[:cut])
	a, ca := reopen(t, path)
	b, cb := reopen(t, path)
	if a.Torn() == nil || b.Torn() == nil {
		t.Fatal("no torn tail")
	}
	mustAppend(t, b, cb, put(7, golf))
	if size := readFile(t, path); int64(len(size)) != cut {
		t.Fatalf("file is %d bytes, the test needs %d", len(size), cut)
	}
	if err := a.Refresh(); err != nil {
		t.Fatal(err)
	}
	sameItems(t, ca, cb)
}

// TestReadOnlyOpen: a vault without write permission opens for reading and
// refuses writes without touching the file.
func TestReadOnlyOpen(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores file permissions")
	}
	path, v, c := newTestVault(t)
	mustAppend(t, v, c, put(1, "one"))
	v.Close()
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, path)
	v2, c2 := reopen(t, path)
	sameItems(t, c2, c)
	if err := v2.Append([]Change{put(2, "two")}); err == nil {
		t.Fatal("append to a read-only vault succeeded")
	}
	if err := v2.Compact(); err == nil {
		t.Fatal("compaction of a read-only vault succeeded")
	}
	if !bytes.Equal(readFile(t, path), before) {
		t.Fatal("read-only vault changed")
	}
}
