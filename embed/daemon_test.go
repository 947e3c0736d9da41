//go:build unix

package embed

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The daemon tests run real processes: this test binary re-executed as
// the daemon (through DaemonArgv, as the compartment binary re-executes
// itself) and as client processes. TestONNXDaemonHelperProcess is the
// entry point of those processes and does nothing in a normal run.

const helperEnv = "COMPARTMENT_EMBED_TEST_HELPER"

func helperArgv(role string) []string {
	return []string{os.Args[0], "-test.run=^TestONNXDaemonHelperProcess$", "--", role}
}

func TestONNXDaemonHelperProcess(t *testing.T) {
	args := flag.Args()
	if os.Getenv(helperEnv) != "1" || len(args) == 0 {
		return
	}
	DaemonArgv = helperArgv("daemon")
	switch args[0] {
	case "daemon":
		os.Exit(helperDaemon(args[1:]))
	case "client":
		os.Exit(helperClient(args[1:]))
	case "hang":
		os.Exit(helperHang(args[1:]))
	}
	os.Exit(2)
}

// helperDaemon is `compartment embed-daemon run` for the test binary.
func helperDaemon(args []string) int {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	socket := fs.String("socket", "", "")
	model := fs.String("model", "", "")
	lib := fs.String("runtime-lib", "", "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	err := RunDaemon(ctx, DaemonOptions{Socket: *socket, Model: LoadOptions{Name: *model, RuntimeLib: *lib}, Log: os.Stderr})
	if errors.Is(err, ErrDaemonRunning) {
		return DaemonExitRunning
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// clientReport is what a client process prints.
type clientReport struct {
	DaemonPID int         `json:"daemon_pid"`
	ORTLoaded bool        `json:"ort_loaded"`
	RSSMB     float64     `json:"rss_mb"`
	Docs      []Document  `json:"docs"`
	Query     []float32   `json:"query"`
	Info      ModelInfo   `json:"info"`
	Err       string      `json:"err,omitempty"`
	Extra     interface{} `json:"extra,omitempty"`
}

// helperClient opens the model given as its one argument through Open,
// embeds daemonTexts and daemonQuery, and prints a clientReport.
func helperClient(args []string) int {
	var rep clientReport
	enc, err := Open(LoadOptions{Name: args[0]})
	if err == nil {
		rep.Info = enc.Info()
		rep.Docs, err = enc.EmbedDocuments(daemonTexts)
	}
	if err == nil {
		rep.Query, err = enc.EmbedQuery(daemonQuery)
	}
	if err != nil {
		rep.Err = err.Error()
	} else {
		rep.DaemonPID = DaemonPID(enc)
		enc.Close()
	}
	rep.ORTLoaded = ortLoaded()
	rep.RSSMB = residentMB()
	json.NewEncoder(os.Stdout).Encode(rep)
	return 0
}

// helperHang says hello for the model given, sends a large request,
// prints "sent" and waits to be killed before the answer comes.
func helperHang(args []string) int {
	ref, _, err := resolveModel(LoadOptions{Name: args[0]})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	c := &daemonClient{socket: DaemonSocketPath(), ref: ref}
	conn, hello, err := c.dial()
	if err != nil {
		fmt.Println(err)
		return 1
	}
	info, _ := hello.Info.info()
	// About 6,000 tokens, 16 windows each: long enough to be killed in the
	// middle of, short enough for the daemon to finish soon after.
	big := strings.Repeat("a long memory that keeps the daemon busy for a while ", 600)
	if err := writeFrame(conn, encodeDocsRequest(info.SHA256, []string{big, big})); err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("sent")
	readFrame(conn) // killed before this returns, normally
	return 0
}

var daemonTexts = []string{
	"The staging database moved to db-2.internal on Tuesday.",
	"",
	"Alice prefers tea after lunch and dark roast coffee in the morning.",
	strings.Repeat("A long memory that needs more than one window of tokens. ", 120),
}

const daemonQuery = "where did the staging database move?"

// daemonModel is the fixture ONNX model when ONNX Runtime is installed,
// else the bundled static model, so the daemon is always exercised.
func daemonModel(t *testing.T) string {
	t.Helper()
	if ortLibPresent() {
		requireORT(t)
		abs, err := filepath.Abs(fixtureDir)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	fmt.Fprintln(os.Stderr, "!!! ONNX Runtime absent: daemon tests serve the static model as a test model; run `make setup`")
	return testStaticModel
}

// testStaticModel is the bundled static model under a test name, so it
// goes through the daemon (Open keeps the static model in-process).
const testStaticModel = "test:static"

func init() { testEncoders[testStaticModel] = OpenStatic }

func ortLibPresent() bool {
	if os.Getenv(EnvORTLib) != "" {
		return true
	}
	for _, d := range ortSearchDirs() {
		if _, err := os.Stat(filepath.Join(d, ortLibName)); err == nil {
			return true
		}
	}
	return false
}

// daemonEnv gives the test its own socket, lets Open start daemons from
// this test binary, and stops whatever daemon is left at the end.
func daemonEnv(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cd") // short: a socket path has at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "embed.sock")
	t.Setenv(EnvEmbedSocket, socket)
	t.Setenv(EnvEmbedIdle, "60")
	t.Setenv(EnvEmbedDaemon, "")
	t.Setenv(helperEnv, "1")
	saved := DaemonArgv
	DaemonArgv = helperArgv("daemon")
	t.Cleanup(func() {
		DaemonArgv = saved
		StopDaemon(socket)
		if t.Failed() {
			if log, err := os.ReadFile(daemonLogPath(socket)); err == nil {
				t.Logf("daemon log:\n%s", log)
			}
		}
		os.RemoveAll(dir)
	})
	return socket
}

// waitFor polls cond until it holds or a generous deadline passes (a
// liveness bound, not a speed assertion).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func status(t *testing.T, socket string) DaemonStatus {
	t.Helper()
	st, err := DaemonStatusAt(socket)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// sameVectors compares a client's output with the in-process reference.
func sameVectors(t *testing.T, who string, gotDocs []Document, gotQuery []float32, want []Document, wantQuery []float32) {
	t.Helper()
	if len(gotDocs) != len(want) {
		t.Fatalf("%s: %d documents, want %d", who, len(gotDocs), len(want))
	}
	for i := range want {
		if gotDocs[i].Tokens != want[i].Tokens || fmt.Sprint(gotDocs[i].Windows) != fmt.Sprint(want[i].Windows) {
			t.Errorf("%s doc %d: tokens %d windows %v, want %d %v", who, i, gotDocs[i].Tokens, gotDocs[i].Windows, want[i].Tokens, want[i].Windows)
			continue
		}
		for w := range want[i].Vectors {
			if d := maxAbsDiff(gotDocs[i].Vectors[w], want[i].Vectors[w]); d > 1e-6 {
				t.Errorf("%s doc %d window %d: max |diff| %.2g from in-process", who, i, w, d)
			}
		}
	}
	if d := maxAbsDiff(gotQuery, wantQuery); d > 1e-6 {
		t.Errorf("%s query: max |diff| %.2g from in-process", who, d)
	}
}

func reference(t *testing.T, model string) ([]Document, []float32, ModelInfo) {
	t.Helper()
	enc, err := Load(LoadOptions{Name: model})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	docs, q := embedAll(t, enc)
	return docs, q, enc.Info()
}

// embedAll embeds daemonTexts and daemonQuery with enc.
func embedAll(t *testing.T, enc Encoder) ([]Document, []float32) {
	t.Helper()
	docs, err := enc.EmbedDocuments(daemonTexts)
	if err != nil {
		t.Fatal(err)
	}
	q, err := enc.EmbedQuery(daemonQuery)
	if err != nil {
		t.Fatal(err)
	}
	return docs, q
}

// openServed opens model through Open and wants a daemon to serve it,
// failing with noDaemon when none does; the caller closes the encoder.
func openServed(t *testing.T, model, noDaemon string) (Encoder, int) {
	t.Helper()
	enc, err := Open(LoadOptions{Name: model})
	if err != nil {
		t.Fatal(err)
	}
	pid := DaemonPID(enc)
	if pid == 0 {
		enc.Close()
		t.Fatal(noDaemon)
	}
	return enc, pid
}

// TestONNXDaemonConcurrentClients: four client processes start at once;
// one daemon comes up, all four get exactly the in-process vectors, and
// none of them loads the model (or ONNX Runtime) itself.
func TestONNXDaemonConcurrentClients(t *testing.T) {
	model := daemonModel(t)
	socket := daemonEnv(t)
	wantDocs, wantQuery, info := reference(t, model)
	reports := make([]clientReport, 4)
	var wg sync.WaitGroup
	errs := make([]error, len(reports))
	for i := range reports {
		wg.Add(1)
		go func() {
			defer wg.Done()
			argv := helperArgv("client")
			out, err := exec.Command(argv[0], append(argv[1:], model)...).Output()
			if err == nil {
				err = json.Unmarshal(out, &reports[i])
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	pids := map[int]bool{}
	for i, rep := range reports {
		if errs[i] != nil || rep.Err != "" {
			t.Fatalf("client %d: %v %s", i, errs[i], rep.Err)
		}
		who := fmt.Sprintf("client %d", i)
		if rep.Info.SHA256 != info.SHA256 {
			t.Errorf("%s: model %x, want %x", who, rep.Info.SHA256, info.SHA256)
		}
		sameVectors(t, who, rep.Docs, rep.Query, wantDocs, wantQuery)
		if rep.DaemonPID == 0 {
			t.Errorf("%s embedded in-process instead of through the daemon", who)
		}
		if rep.ORTLoaded {
			t.Errorf("%s loaded ONNX Runtime itself", who)
		}
		pids[rep.DaemonPID] = true
		t.Logf("%s: daemon pid %d, client RSS %.1f MB", who, rep.DaemonPID, rep.RSSMB)
	}
	if len(pids) != 1 {
		t.Errorf("clients used %d different daemons: %v", len(pids), pids)
	}
	st := status(t, socket)
	if !st.Running || !pids[st.PID] || st.Model != info.Name || st.SHA256 != FormatPin(info.SHA256) {
		t.Errorf("status = %+v", st)
	}
	waitFor(t, "clients to drop to 0", func() bool { return status(t, socket).Clients == 0 })
	t.Logf("daemon RSS %.1f MB serving %s (BenchmarkONNXDaemonRSS measures it without this process's shared pages)",
		status(t, socket).RSSMB, info.Name)
}

// TestONNXDaemonSurvivesKilledClient: a client killed with SIGKILL in the
// middle of a request takes nothing down with it.
func TestONNXDaemonSurvivesKilledClient(t *testing.T) {
	model := daemonModel(t)
	socket := daemonEnv(t)
	wantDocs, wantQuery, _ := reference(t, model)
	enc, pid := openServed(t, model, "no daemon")
	defer enc.Close()
	argv := helperArgv("hang")
	victim := exec.Command(argv[0], append(argv[1:], model)...)
	out, err := victim.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "sent" {
		victim.Process.Kill()
		t.Fatalf("victim said %q", line)
	}
	if st := status(t, socket); st.Clients != 2 {
		t.Errorf("clients = %d with the victim connected, want 2", st.Clients)
	}
	victim.Process.Signal(syscall.SIGKILL)
	victim.Wait()
	docs, q := embedAll(t, enc)
	sameVectors(t, "survivor", docs, q, wantDocs, wantQuery)
	if DaemonPID(enc) != pid || status(t, socket).PID != pid {
		t.Errorf("the daemon changed from pid %d", pid)
	}
	waitFor(t, "the killed client to be dropped", func() bool { return status(t, socket).Clients == 1 })
}

// TestONNXDaemonReplacesStale: a socket file nobody listens on, and a
// daemon killed with SIGKILL, are both replaced by a fresh daemon; a
// client whose daemon died carries on.
func TestONNXDaemonReplacesStale(t *testing.T) {
	model := daemonModel(t)
	socket := daemonEnv(t)
	_, wantQuery, _ := reference(t, model)
	// A leftover socket file.
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Stat(socket); err != nil {
		t.Fatalf("the stale socket is gone before the test: %v", err)
	}
	enc, first := openServed(t, model, "no daemon replaced the stale socket")
	defer enc.Close()
	// A daemon that crashed: its lock dies with it, its socket stays.
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the killed daemon to stop answering", func() bool {
		st, err := DaemonStatusAt(socket)
		return err != nil || !st.Running
	})
	if _, err := os.Stat(socket); err != nil {
		t.Fatalf("expected the dead daemon's socket to be left behind: %v", err)
	}
	q, err := enc.EmbedQuery(daemonQuery)
	if err != nil {
		t.Fatalf("client after its daemon died: %v", err)
	}
	if d := maxAbsDiff(q, wantQuery); d > 1e-6 {
		t.Errorf("query after restart differs by %.2g", d)
	}
	second := DaemonPID(enc)
	if second == 0 || second == first {
		t.Errorf("daemon pid %d after the crash of %d; want a new daemon", second, first)
	}
	if st := status(t, socket); st.PID != second {
		t.Errorf("status pid %d, client's daemon %d", st.PID, second)
	}
}

func TestONNXDaemonIdleExit(t *testing.T) {
	model := daemonModel(t)
	socket := daemonEnv(t)
	t.Setenv(EnvEmbedIdle, "0.3")
	enc, err := Open(LoadOptions{Name: model})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enc.EmbedQuery(daemonQuery); err != nil {
		t.Fatal(err)
	}
	pid := DaemonPID(enc)
	if pid == 0 {
		t.Fatal("no daemon")
	}
	if st := status(t, socket); !st.Running || st.Clients != 1 {
		t.Fatalf("status with a client = %+v", st)
	}
	enc.Close()
	waitFor(t, "the idle daemon to exit", func() bool { return syscall.Kill(pid, 0) != nil })
	if _, err := os.Stat(socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the idle daemon left its socket: %v", err)
	}
}

// TestONNXDaemonModelMismatch: a client never takes vectors from a daemon
// that serves another model. While the other model's daemon is busy, the
// client loads its own model; once it is idle, the client replaces it.
func TestONNXDaemonModelMismatch(t *testing.T) {
	requireORT(t)
	socket := daemonEnv(t)
	modelA, _ := filepath.Abs(fixtureDir)
	modelB := fixtureVariant(t, func(m *Manifest) { m.Pooling = "mean"; m.Name = "tiny-bert-mean" })
	encA, err := Open(LoadOptions{Name: modelA})
	if err != nil {
		t.Fatal(err)
	}
	pidA := DaemonPID(encA)
	encB, err := Open(LoadOptions{Path: modelB})
	if err != nil {
		t.Fatal(err)
	}
	if DaemonPID(encB) != 0 {
		t.Fatalf("model B was served by daemon %d, which serves A", DaemonPID(encB))
	}
	_, wantQueryB, infoB := reference(t, modelB)
	if encB.Info().SHA256 != infoB.SHA256 || encB.Info().SHA256 == encA.Info().SHA256 {
		t.Fatalf("encB pin %x, want B's %x (A is %x)", encB.Info().SHA256, infoB.SHA256, encA.Info().SHA256)
	}
	qB, err := encB.EmbedQuery(daemonQuery)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(qB, wantQueryB); d > 1e-6 {
		t.Errorf("B's query differs from B in-process by %.2g", d)
	}
	encB.Close()
	// At the protocol level: a request naming B's pin gets no vectors.
	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	refA, _, _ := resolveModel(LoadOptions{Name: modelA})
	exchange(conn, encodeHello(refA, os.Getpid()))
	body, err := exchange(conn, encodeQueryRequest(infoB.SHA256, daemonQuery))
	if err != nil {
		t.Fatal(err)
	}
	var wrong *errWrongModel
	if _, err := replyPayload(body); !errors.As(err, &wrong) {
		t.Errorf("a request for B's pin got %v, want a wrong-model reply", err)
	}
	conn.Close()
	// With A's clients gone, B replaces the daemon.
	encA.Close()
	waitFor(t, "A's daemon to be idle", func() bool { return status(t, socket).Clients == 0 })
	encB, err = Open(LoadOptions{Path: modelB})
	if err != nil {
		t.Fatal(err)
	}
	defer encB.Close()
	if pid := DaemonPID(encB); pid == 0 || pid == pidA {
		t.Errorf("B is served by pid %d (A's daemon was %d)", pid, pidA)
	}
	if st := status(t, socket); st.Model != "tiny-bert-mean" {
		t.Errorf("daemon serves %q after the swap", st.Model)
	}
}

func TestONNXDaemonDisabled(t *testing.T) {
	model := daemonModel(t)
	socket := daemonEnv(t)
	t.Setenv(EnvEmbedDaemon, "0")
	enc, err := Open(LoadOptions{Name: model})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	if DaemonPID(enc) != 0 {
		t.Error("COMPARTMENT_EMBED_DAEMON=0 still used a daemon")
	}
	if _, err := os.Stat(socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a socket appeared: %v", err)
	}
	// A program that cannot start a daemon (DaemonArgv nil) loads in-process.
	t.Setenv(EnvEmbedDaemon, "")
	DaemonArgv = nil
	enc2, err := Open(LoadOptions{Name: model})
	if err != nil {
		t.Fatal(err)
	}
	defer enc2.Close()
	if DaemonPID(enc2) != 0 {
		t.Error("a daemon appeared without DaemonArgv")
	}
}

// TestONNXDaemonPrivateRuntimeDir: the default runtime directory is 0700
// (a looser one is tightened) and the socket 0600.
func TestONNXDaemonPrivateRuntimeDir(t *testing.T) {
	model := daemonModel(t)
	daemonEnv(t)
	base, err := os.MkdirTemp("", "xdg")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	t.Setenv("XDG_RUNTIME_DIR", base)
	t.Setenv(EnvEmbedSocket, "")
	dir := filepath.Join(base, "compartment")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	socket := DaemonSocketPath()
	if socket != filepath.Join(dir, "embed.sock") {
		t.Fatalf("socket path %s", socket)
	}
	defer StopDaemon(socket)
	enc, _ := openServed(t, model, "no daemon")
	defer enc.Close()
	for path, want := range map[string]os.FileMode{dir: 0o700, socket: 0o600} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, st.Mode().Perm(), want)
		}
	}
}

func TestONNXDaemonProtocolRoundTrip(t *testing.T) {
	pin := [32]byte{1, 2, 3}
	texts := []string{"", "hello", strings.Repeat("é", 1000)}
	gotPin, gotTexts, err := decodeDocsRequest(encodeDocsRequest(pin, texts)[1:])
	if err != nil || gotPin != pin || fmt.Sprint(gotTexts) != fmt.Sprint(texts) {
		t.Fatalf("docs request: %v %x %q", err, gotPin, gotTexts)
	}
	docs := []Document{
		{Vectors: [][]float32{{0.5, -0.25}}, Tokens: 3, Windows: [][2]int{{0, 3}}},
		{Vectors: [][]float32{{1, 0}, {0, 1}}, Tokens: 500, Windows: [][2]int{{0, 448}, {384, 500}}},
	}
	got, err := decodeDocsReply(encodeDocsReply(docs)[1:])
	if err != nil || fmt.Sprint(got) != fmt.Sprint(docs) {
		t.Fatalf("docs reply: %v\n%v\n%v", err, got, docs)
	}
	v, err := decodeQueryReply(encodeQueryReply([]float32{3, 4})[1:])
	if err != nil || fmt.Sprint(v) != "[3 4]" {
		t.Fatalf("query reply: %v %v", v, err)
	}
	if _, err := readFrame(strings.NewReader("\x00\x00\x00\x05abc")); err == nil {
		t.Error("a short frame was accepted")
	}
	if _, err := readFrame(strings.NewReader("\xff\xff\xff\xff")); !errors.Is(err, errFrame) {
		t.Errorf("a 4 GiB frame length: %v", err)
	}
}

func FuzzONNXDaemonMessages(f *testing.F) {
	f.Add(encodeDocsRequest([32]byte{9}, []string{"a", "bc"})[1:])
	f.Add(encodeDocsReply([]Document{{Vectors: [][]float32{{1}}, Tokens: 1, Windows: [][2]int{{0, 1}}}})[1:])
	f.Add(encodeQueryReply([]float32{1, 2})[1:])
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, body []byte) {
		// Untrusted bytes must decode or fail, never panic or allocate
		// beyond what they carry.
		decodeDocsRequest(body)
		decodeQueryRequest(body)
		if docs, err := decodeDocsReply(body); err == nil {
			if again, err := decodeDocsReply(encodeDocsReply(docs)[1:]); err != nil || fmt.Sprint(again) != fmt.Sprint(docs) {
				t.Fatalf("docs reply does not round-trip: %v", err)
			}
		}
		decodeQueryReply(body)
		decodeHello(body)
	})
}

func TestONNXDaemonEnvironmentHasNoSecrets(t *testing.T) {
	got := daemonEnviron([]string{"PATH=/bin", "HOME=/h", "COMPARTMENT_PASSPHRASE=hunter2", "COMPARTMENT_ORT_LIB=/x.so",
		"COMPARTMENT_SESSION_DIR=/s", "AWS_SECRET_ACCESS_KEY=k", "GITHUB_TOKEN=t", "LC_ALL=C", "EDITOR=vi",
		"COMPARTMENT_EMBED_SOCKET=/run/s"})
	if want := "PATH=/bin HOME=/h COMPARTMENT_ORT_LIB=/x.so LC_ALL=C COMPARTMENT_EMBED_SOCKET=/run/s"; strings.Join(got, " ") != want {
		t.Errorf("daemon environment = %v\nwant %s", got, want)
	}
}

// TestONNXDaemonLockReleasedLate: a killed daemon's lock can outlive its
// socket by a moment, so the daemon a client starts then finds the lock
// taken and exits. The client must start another one once the lock is free
// instead of waiting out its whole start timeout for a daemon that never
// comes.
func TestONNXDaemonLockReleasedLate(t *testing.T) {
	model := daemonModel(t)
	socket := daemonEnv(t)
	if err := prepareSocketDir(socket); err != nil {
		t.Fatal(err)
	}
	lock, err := lockDaemon(socket) // the dying daemon's lock
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan time.Time, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		released <- time.Now()
		lock.Close()
	}()
	enc, err := Open(LoadOptions{Name: model})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	if _, err := enc.EmbedQuery(daemonQuery); err != nil {
		t.Fatal(err)
	}
	select {
	case <-released:
	default:
		t.Fatal("a daemon served while another process held the lock")
	}
	if DaemonPID(enc) == 0 {
		t.Fatal("the client fell back in-process instead of starting a daemon once the lock was free")
	}
}
