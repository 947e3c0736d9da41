package devsync

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// The tests in this file move a sync folder between two vaults with real
// engines: two Syncthing instances on 127.0.0.1, and rsync copying files in
// random order. Each vault is written by a real process (this test binary,
// re-run as a helper) that stores memories and prints the id of each one
// the vault acknowledged; the test kills those processes with SIGKILL in
// the middle of the run.

func TestMain(m *testing.M) {
	switch os.Getenv("DEVSYNC_HELPER") {
	case "store":
		helperStore()
		return
	case "merge":
		helperMerge()
		return
	}
	os.Exit(m.Run())
}

// helperStore stores memories DEVSYNC_FROM..DEVSYNC_TO-1 in the vault at
// DEVSYNC_VAULT, merging as the folder changes (as the server does), and
// prints "ack <index> <id>" for each store the vault acknowledged.
func helperStore() {
	path := os.Getenv("DEVSYNC_VAULT")
	from, _ := strconv.Atoi(os.Getenv("DEVSYNC_FROM"))
	to, _ := strconv.Atoi(os.Getenv("DEVSYNC_TO"))
	prefix := os.Getenv("DEVSYNC_PREFIX")
	v, err := vault.Open(path, vault.Options{Unlock: unlockTest()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper: open:", err)
		os.Exit(2)
	}
	s, _, err := Attach(v, Options{})
	if s == nil {
		fmt.Fprintln(os.Stderr, "helper: attach:", err)
		os.Exit(2)
	}
	s.Watch(200*time.Millisecond, nil)
	for i := from; i < to; i++ {
		res, err := v.Store(vault.StoreRequest{Text: helperText(prefix, i), Source: "engine test"})
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper: store:", err)
			os.Exit(3)
		}
		fmt.Printf("ack %d %s\n", i, res.ID)
	}
	s.Detach()
	v.Close()
}

// helperMerge opens the vault at DEVSYNC_VAULT and merges once (what
// every command does when it opens a synced vault), then says so.
func helperMerge() {
	v, err := vault.Open(os.Getenv("DEVSYNC_VAULT"), vault.Options{Unlock: unlockTest()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper: open:", err)
		os.Exit(2)
	}
	fmt.Println("opened")
	if _, _, err := Attach(v, Options{}); err != nil {
		fmt.Fprintln(os.Stderr, "helper: merge:", err)
		os.Exit(3)
	}
	fmt.Println("merged")
	v.Close()
}

func helperText(prefix string, i int) string {
	return fmt.Sprintf("%s device memory number %d", prefix, i)
}

// writer runs helper processes for one vault and collects what they
// acknowledged.
type writer struct {
	t      *testing.T
	path   string
	prefix string
	mu     sync.Mutex
	acked  map[int]string
	kills  int
}

// run stores from..n-1, killing the process with SIGKILL once killAt
// acknowledgements arrived (killAt < 0: never), then resumes after the last
// acknowledged one.
func (w *writer) run(n, killAt int) error {
	next := 0
	for next < n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "DEVSYNC_HELPER=store", "DEVSYNC_VAULT="+w.path, "DEVSYNC_PREFIX="+w.prefix,
			"DEVSYNC_FROM="+strconv.Itoa(next), "DEVSYNC_TO="+strconv.Itoa(n))
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			return err
		}
		killed := false
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 3 || f[0] != "ack" {
				continue
			}
			i, _ := strconv.Atoi(f[1])
			w.mu.Lock()
			w.acked[i] = f[2]
			count := len(w.acked)
			w.mu.Unlock()
			next = max(next, i+1)
			if killAt >= 0 && count >= killAt && !killed {
				cmd.Process.Kill() // SIGKILL, mid-run
				killed, killAt = true, -1
				w.kills++
			}
		}
		err = cmd.Wait()
		if !killed && err != nil {
			return fmt.Errorf("%s writer: %v: %s", w.prefix, err, stderr.String())
		}
	}
	return nil
}

// converge opens each vault until every one holds every acknowledged
// memory of every writer (by text and id), or the deadline passes.
func converge(t *testing.T, paths []string, writers []*writer, deadline time.Duration) {
	t.Helper()
	want := map[string]string{}
	for _, w := range writers {
		for i, id := range w.acked {
			want[id] = helperText(w.prefix, i)
		}
	}
	stop := time.Now().Add(deadline)
	for {
		missing := 0
		for _, p := range paths {
			missing += missingIn(t, p, want)
		}
		if missing == 0 {
			return
		}
		if time.Now().After(stop) {
			t.Fatalf("after %v, %d acknowledged memories are still missing across %d vaults", deadline, missing, len(paths))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// missingIn opens the vault (which merges, as every command does) and
// counts the wanted memories it lacks.
func missingIn(t *testing.T, path string, want map[string]string) int {
	t.Helper()
	v := openVault(t, path)
	defer v.Close()
	s, _, err := Attach(v, Options{})
	if s == nil {
		t.Fatal(err)
	}
	defer s.Detach()
	if err != nil {
		t.Logf("%s: merge: %v", path, err)
	}
	missing := 0
	for id, text := range want {
		r, err := v.Get(id)
		if err != nil || r.Text != text {
			missing++
		}
	}
	return missing
}

// shredEverywhere shreds one acknowledged memory on the first vault and
// waits until no vault holds it and no log copy in any folder holds its
// content.
func shredEverywhere(t *testing.T, paths, folders []string, id string, deadline time.Duration) {
	t.Helper()
	v := openVault(t, paths[0])
	s, _, _ := Attach(v, Options{})
	if _, err := v.Forget(id, true); err != nil {
		t.Fatal(err)
	}
	keys := s.keys
	s.Detach()
	v.Close()
	raw, _ := vault.ParseID(id)
	stop := time.Now().Add(deadline)
	for {
		left := 0
		for _, p := range paths {
			left += missingIn(t, p, map[string]string{id: ""}) ^ 1
		}
		for _, dir := range folders {
			_, logs, _ := listFolder(dir)
			for dev := range logs {
				st, err := readLog(logPath(dir, dev), keys, dev)
				if err != nil {
					continue // a copy being replaced; look again
				}
				for _, o := range st.ops {
					if o.Target == raw && o.Kind.carriesContent() {
						left++
					}
				}
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(stop) {
			t.Fatalf("after %v the shredded memory survives in %d places", deadline, left)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// twoVaults makes two vaults for the two folders; the first initialises
// its folder, the second joins once bring() has brought folder.key over.
func twoVaults(t *testing.T, folders []string, bring func()) (paths []string) {
	t.Helper()
	clearEnv(t)
	root := t.TempDir()
	for i := range 2 {
		os.MkdirAll(folders[i], 0o700)
		v := newVault(t, filepath.Join(root, fmt.Sprintf("vault-%c", 'a'+i)))
		paths = append(paths, v.Path())
		v.Close()
	}
	setUp := func(i int, first bool) {
		v := openVault(t, paths[i])
		defer v.Close()
		o := SetupOptions{Passphrase: testPass, KDF: testKDF, Name: fmt.Sprintf("dev-%c", 'a'+i)}
		var s *Syncer
		var err error
		if first {
			s, _, err = Init(v, folders[i], o)
		} else {
			s, _, err = Join(v, folders[i], o)
		}
		if err != nil {
			t.Fatal(err)
		}
		s.Detach()
	}
	setUp(0, true)
	deadline := time.Now().Add(60 * time.Second)
	for {
		bring()
		if _, err := os.Stat(filepath.Join(folders[1], keyFileName)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("folder.key never reached the second folder")
		}
		time.Sleep(200 * time.Millisecond)
	}
	setUp(1, false)
	return paths
}

// runWorkload: both vaults store n memories each, concurrently, each
// writer killed with SIGKILL once (a after n/3 acknowledgements, b after
// 2n/3); then both must hold all 2n, and a shred on one must be gone from
// both.
func runWorkload(t *testing.T, paths, folders []string, n int, deadline time.Duration) {
	t.Helper()
	ws := []*writer{{t: t, path: paths[0], prefix: "alpha", acked: map[int]string{}},
		{t: t, path: paths[1], prefix: "bravo", acked: map[int]string{}}}
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = w.run(n, (i+1)*n/3)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	wrote := time.Since(start)
	if ws[0].kills != 1 || ws[1].kills != 1 || len(ws[0].acked) != n || len(ws[1].acked) != n {
		t.Fatalf("writers: %d and %d acknowledged, %d and %d kills", len(ws[0].acked), len(ws[1].acked), ws[0].kills, ws[1].kills)
	}
	converge(t, paths, ws, deadline)
	t.Logf("%d memories per vault written in %v (with a SIGKILL each); both vaults held all %d acknowledged %v after the writers finished",
		n, wrote.Round(time.Millisecond), len(ws[0].acked)+len(ws[1].acked), (time.Since(start) - wrote).Round(time.Millisecond))
	for _, dir := range folders {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.Contains(e.Name(), "sync-conflict") || strings.Contains(e.Name(), "conflicted copy") {
				t.Errorf("the engine made a conflict copy: %s", filepath.Join(dir, e.Name()))
			}
		}
	}
	shredEverywhere(t, paths, folders, ws[1].acked[n/2], deadline)
}

// --- Syncthing ---

type syncthing struct {
	home, folder string
	gui, listen  int
	id, apiKey   string
	cmd          *exec.Cmd
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

var (
	reDeviceID = regexp.MustCompile(`<device id="([A-Z0-9-]+)"`)
	reAPIKey   = regexp.MustCompile(`<apikey>([^<]+)</apikey>`)
)

// newSyncthing generates a Syncthing home that talks to nobody but
// 127.0.0.1: global and local discovery, relays, NAT, usage reporting,
// crash reporting and upgrades off.
func newSyncthing(t *testing.T, home, folder string) *syncthing {
	t.Helper()
	st := &syncthing{home: home, folder: folder, gui: freePort(t), listen: freePort(t)}
	cmd := exec.Command("syncthing", "generate", "--home="+home, "--no-default-folder", "--skip-port-probing")
	cmd.Env = syncthingEnv(home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("syncthing generate: %v\n%s", err, out)
	}
	cfg, err := os.ReadFile(filepath.Join(home, "config.xml"))
	if err != nil {
		t.Fatal(err)
	}
	c := string(cfg)
	st.id = reDeviceID.FindStringSubmatch(c)[1]
	st.apiKey = reAPIKey.FindStringSubmatch(c)[1]
	for old, repl := range map[string]string{
		"<listenAddress>default</listenAddress>":              fmt.Sprintf("<listenAddress>tcp://127.0.0.1:%d</listenAddress>", st.listen),
		"<globalAnnounceEnabled>true</globalAnnounceEnabled>": "<globalAnnounceEnabled>false</globalAnnounceEnabled>",
		"<localAnnounceEnabled>true</localAnnounceEnabled>":   "<localAnnounceEnabled>false</localAnnounceEnabled>",
		"<relaysEnabled>true</relaysEnabled>":                 "<relaysEnabled>false</relaysEnabled>",
		"<natEnabled>true</natEnabled>":                       "<natEnabled>false</natEnabled>",
		"<startBrowser>true</startBrowser>":                   "<startBrowser>false</startBrowser>",
		"<urAccepted>0</urAccepted>":                          "<urAccepted>-1</urAccepted>",
		"<autoUpgradeIntervalH>12</autoUpgradeIntervalH>":     "<autoUpgradeIntervalH>0</autoUpgradeIntervalH>",
		"<crashReportingEnabled>true</crashReportingEnabled>": "<crashReportingEnabled>false</crashReportingEnabled>",
	} {
		if !strings.Contains(c, old) {
			t.Fatalf("syncthing config has no %s", old)
		}
		c = strings.Replace(c, old, repl, 1)
	}
	if err := os.WriteFile(filepath.Join(home, "config.xml"), []byte(c), 0o600); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(folder, ".stfolder"), 0o700)
	return st
}

func syncthingEnv(home string) []string {
	return append(os.Environ(), "HOME="+home, "STNOUPGRADE=1", "STNODEFAULTFOLDER=1", "STNORESTART=1")
}

func (st *syncthing) start(t *testing.T) {
	t.Helper()
	log, _ := os.Create(filepath.Join(st.home, "syncthing.log"))
	st.cmd = exec.Command("syncthing", "serve", "--home="+st.home, "--no-browser", "--no-restart",
		fmt.Sprintf("--gui-address=http://127.0.0.1:%d", st.gui), "--gui-apikey="+st.apiKey)
	st.cmd.Env = syncthingEnv(st.home)
	st.cmd.Stdout, st.cmd.Stderr = log, log
	if err := st.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		st.cmd.Process.Kill()
		st.cmd.Wait()
		log.Close()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("syncthing %s log (tail):\n%s", st.id[:7], tail(string(b), 3000))
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := st.rest("GET", "/rest/system/ping", nil); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("syncthing on 127.0.0.1:%d did not answer", st.gui)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func (st *syncthing) rest(method, path string, body any) ([]byte, error) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = strings.NewReader(string(b))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, fmt.Sprintf("http://127.0.0.1:%d%s", st.gui, path), r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-API-Key", st.apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return b, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, b)
	}
	return b, nil
}

// introduce tells st about peer (by device id and its loopback address)
// and shares the folder with it, through the REST API.
func (st *syncthing) introduce(t *testing.T, peer *syncthing) {
	t.Helper()
	dev := map[string]any{"deviceID": peer.id, "name": "peer", "addresses": []string{fmt.Sprintf("tcp://127.0.0.1:%d", peer.listen)},
		"compression": "metadata", "autoAcceptFolders": false}
	if _, err := st.rest("POST", "/rest/config/devices", dev); err != nil {
		t.Fatal(err)
	}
	folder := map[string]any{"id": "compartment", "label": "compartment", "path": st.folder, "type": "sendreceive",
		"rescanIntervalS": 2, "fsWatcherEnabled": true, "fsWatcherDelayS": 1,
		"devices": []map[string]any{{"deviceID": st.id}, {"deviceID": peer.id}}}
	if _, err := st.rest("POST", "/rest/config/folders", folder); err != nil {
		t.Fatal(err)
	}
}

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (scripts/setup.d/60-syncthing.sh installs it)", tool)
		}
	}
}

func workloadSize() int {
	n := 500
	if s := os.Getenv("COMPARTMENT_SYNC_SOAK"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	return n
}

// TestSyncthingTwoVaults: two Syncthing instances on this machine move
// the folder; two vaults store 500 memories each, concurrently, each
// writer killed once with SIGKILL; both hold all 1,000 acknowledged within
// a bounded time, and a shred on one is gone from the other.
func TestSyncthingTwoVaults(t *testing.T) {
	needTools(t, "syncthing")
	if testing.Short() {
		t.Skip("starts two Syncthing instances")
	}
	root := t.TempDir()
	folders := []string{filepath.Join(root, "folder-a"), filepath.Join(root, "folder-b")}
	var sts []*syncthing
	for i := range 2 {
		sts = append(sts, newSyncthing(t, filepath.Join(root, fmt.Sprintf("st-%d", i)), folders[i]))
	}
	for _, st := range sts {
		st.start(t)
	}
	sts[0].introduce(t, sts[1])
	sts[1].introduce(t, sts[0])
	paths := twoVaults(t, folders, func() {})
	runWorkload(t, paths, folders, workloadSize(), 90*time.Second)
}

// TestRsyncRandomOrder: the same with a plain folder per vault, copied
// file by file by rsync in a random order, sometimes in place (so a reader
// sees a copy in progress), as any other engine would.
func TestRsyncRandomOrder(t *testing.T) {
	needTools(t, "rsync")
	if testing.Short() {
		t.Skip("runs rsync")
	}
	root := t.TempDir()
	folders := []string{filepath.Join(root, "folder-a"), filepath.Join(root, "folder-b")}
	var paths []string
	owner := func(i int) string { // the device id whose files only folder i writes
		if i >= len(paths) {
			return "-"
		}
		b, err := os.ReadFile(SidecarPath(paths[i]))
		if err != nil {
			return "-"
		}
		var sc struct {
			DeviceID string `json:"device_id"`
		}
		json.Unmarshal(b, &sc)
		return sc.DeviceID
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 30))
	round := func() {
		type job struct {
			from, to int
			name     string
		}
		var jobs []job
		for from := range 2 {
			to := 1 - from
			ents, _ := os.ReadDir(folders[from])
			for _, e := range ents {
				if own := owner(to); own != "-" && strings.Contains(e.Name(), own) {
					continue // never copy a device's own files back onto it
				}
				jobs = append(jobs, job{from, to, e.Name()})
			}
		}
		rng.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
		for _, j := range jobs {
			args := []string{"-a"}
			if rng.IntN(3) == 0 {
				args = append(args, "--inplace")
			}
			args = append(args, filepath.Join(folders[j.from], j.name), folders[j.to]+"/")
			exec.Command("rsync", args...).Run() // a file replaced meanwhile is copied next round
		}
	}
	paths = twoVaults(t, folders, round)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Duration(50+rng.IntN(200)) * time.Millisecond):
			}
			round()
		}
	}()
	defer func() { close(stop); <-done }()
	runWorkload(t, paths, folders, workloadSize(), 90*time.Second)
}

// TestKillDuringMerge: a process merging 3,000 operations from another
// device is killed with SIGKILL at a random moment, again and again (until
// one merge got through): each time the vault holds none of them or all of
// them, never a part, and the next merge finishes the job.
func TestKillDuringMerge(t *testing.T) {
	clearEnv(t)
	folder := filepath.Join(t.TempDir(), "sync")
	d := newDevice(t, "target", folder, true)
	const n = 3000
	writeForeignLog(t, folder, d.s.keys, n)
	path := d.path
	d.close()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	sawBefore, sawAfter := false, false
	for round := 0; round < 8 && !sawAfter; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "DEVSYNC_HELPER=merge", "DEVSYNC_VAULT="+path)
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		sc.Scan() // "opened": the merge starts now
		time.Sleep(time.Duration(rng.IntN(1500)) * time.Millisecond)
		cmd.Process.Kill()
		for sc.Scan() {
		}
		cmd.Wait()
		v := openVault(t, path) // no Attach: look at the vault as the kill left it
		recs, err := v.Records()
		v.Close()
		if err != nil {
			t.Fatal(err)
		}
		switch len(recs) {
		case 0:
			sawBefore = true
		case n:
			sawAfter = true
		default:
			t.Fatalf("round %d: a kill during the merge left %d of %d memories", round, len(recs), n)
		}
	}
	if _, err := (&device{t: t, path: path}).reopen(); err != nil {
		t.Fatal(err)
	}
	v := openVault(t, path)
	defer v.Close()
	if recs, _ := v.Records(); len(recs) != n {
		t.Fatalf("after a full merge the vault holds %d of %d", len(recs), n)
	}
	t.Logf("kills left the vault before the merge: %v, after it: %v", sawBefore, sawAfter)
}

// writeForeignLog writes a log of n stores from another device into dir.
func writeForeignLog(t testing.TB, dir string, keys *folderKeys, n int) {
	t.Helper()
	dev, _ := randomID()
	if err := writeDevice(dir, keys, &Device{ID: dev, Name: "other", Joined: time.Now()}); err != nil {
		t.Fatal(err)
	}
	o := &ownLog{dir: dir, device: dev, k: keys}
	ops := make([]Op, n)
	for i := range ops {
		id, _ := randomID()
		r := &vault.Record{Text: fmt.Sprintf("foreign memory %d", i), Source: "other", Namespace: "main",
			Kind: vault.KindFact, Discovered: "2026-12-01", Created: time.Now(), Importance: 0.5}
		ops[i] = Op{Kind: OpStore, Device: dev, Clock: Clock{Wall: uint64(i + 1)}, Target: id, Payload: vault.SyncRecordBody(r, false)}
	}
	if err := o.append(ops); err != nil {
		t.Fatal(err)
	}
}
