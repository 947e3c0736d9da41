package embed

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DaemonArgv is the command line that runs this program's
// `embed-daemon run`, e.g. {os.Executable(), "embed-daemon", "run"}; the
// daemon's flags (--socket, --model, --runtime-lib) are appended. The
// compartment binary sets it at start-up. Left nil, [Open] never starts a
// daemon: it uses one that is already running, or loads the model itself.
var DaemonArgv []string

// DaemonExitRunning is the exit status of `embed-daemon run` when another
// daemon already serves the socket (a client starting one lost a race).
const DaemonExitRunning = 3

// daemonStartTimeout bounds how long a client waits for a daemon it
// started to load its model and listen.
const daemonStartTimeout = 20 * time.Second

// Open returns an encoder for opts that uses the shared embedding daemon:
// it connects to the running daemon, or starts one, so the model is loaded
// once per user rather than once per process. When the daemon cannot be
// used (COMPARTMENT_EMBED_DAEMON=0, no way to start it, or it serves
// another model and is busy), the model is loaded in this process instead.
// The bundled static model always loads in this process: it is part of
// the binary and opens in milliseconds, so a daemon would only add a
// socket round trip. Either way the encoder's Info describes the model
// whose vectors it returns, and it never returns vectors of any other
// model.
func Open(opts LoadOptions) (Encoder, error) {
	ref, m, err := resolveModel(opts)
	if err != nil {
		return nil, err
	}
	if !daemonSupported || os.Getenv(EnvEmbedDaemon) == "0" || ref.Kind == refStatic {
		return openRef(ref, m, opts.RuntimeLib)
	}
	c := &daemonClient{socket: DaemonSocketPath(), ref: ref, manifest: m, runtimeLib: opts.RuntimeLib}
	conn, hello, err := c.connect()
	if err != nil {
		return openRef(ref, m, opts.RuntimeLib)
	}
	c.info, _ = hello.Info.info()
	c.pid = hello.PID
	c.idle = append(c.idle, conn)
	return c, nil
}

// DaemonPID returns the pid of the daemon serving enc, or 0 when enc runs
// in this process.
func DaemonPID(enc Encoder) int {
	if c, ok := enc.(*daemonClient); ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.fallback == nil {
			return c.pid
		}
	}
	return 0
}

// daemonClient is an Encoder whose model lives in the daemon. It keeps a
// few idle connections so concurrent callers do not queue behind each
// other, and falls back to the model in this process if the daemon goes
// away and cannot be brought back.
type daemonClient struct {
	socket     string
	ref        modelRef
	manifest   *Manifest
	runtimeLib string
	info       ModelInfo
	pid        int

	mu       sync.Mutex
	idle     []net.Conn
	fallback Encoder
	closed   bool
}

// maxIdleConns bounds the connections one client keeps open.
const maxIdleConns = 4

// errWrongModel carries the reply of a daemon serving another model.
type errWrongModel struct{ served helloReply }

func (e *errWrongModel) Error() string {
	return fmt.Sprintf("embed: the daemon serves %s (sha256 %s), not the model asked for",
		e.served.Info.Name, e.served.Info.SHA256)
}

// Info implements Encoder.
func (c *daemonClient) Info() ModelInfo { return c.info }

// EmbedDocuments implements Encoder.
func (c *daemonClient) EmbedDocuments(texts []string) ([]Document, error) {
	if enc := c.inProcess(); enc != nil {
		return enc.EmbedDocuments(texts)
	}
	body, err := c.roundTrip(encodeDocsRequest(c.info.SHA256, texts))
	if err != nil {
		if enc, ferr := c.fallBack(err); ferr == nil {
			return enc.EmbedDocuments(texts)
		} else {
			return nil, ferr
		}
	}
	return decodeDocsReply(body)
}

// EmbedQuery implements Encoder.
func (c *daemonClient) EmbedQuery(text string) ([]float32, error) {
	if enc := c.inProcess(); enc != nil {
		return enc.EmbedQuery(text)
	}
	body, err := c.roundTrip(encodeQueryRequest(c.info.SHA256, text))
	if err != nil {
		if enc, ferr := c.fallBack(err); ferr == nil {
			return enc.EmbedQuery(text)
		} else {
			return nil, ferr
		}
	}
	return decodeQueryReply(body)
}

// Close implements Encoder.
func (c *daemonClient) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for _, conn := range c.idle {
		conn.Close()
	}
	c.idle = nil
	if c.fallback != nil {
		return c.fallback.Close()
	}
	return nil
}

func (c *daemonClient) inProcess() Encoder {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fallback
}

// errDaemonError is an error the daemon reported for a request (a bad
// text, a failed inference); it is returned as is, without falling back.
type errDaemonError struct{ msg string }

func (e *errDaemonError) Error() string { return e.msg }

// roundTrip sends one request and returns the ok reply's payload. A broken
// connection is retried once on a fresh one (the daemon may have been
// restarted); an error reply comes back as *errDaemonError, a reply from
// the wrong model as *errWrongModel.
func (c *daemonClient) roundTrip(req []byte) ([]byte, error) {
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		conn, err := c.get()
		if err != nil {
			return nil, err
		}
		conn.SetDeadline(time.Now().Add(2*time.Minute + time.Duration(len(req)/1024)*10*time.Millisecond))
		body, err := exchange(conn, req)
		if err != nil {
			conn.Close()
			lastErr = err
			continue
		}
		conn.SetDeadline(time.Time{})
		c.put(conn)
		return replyPayload(body)
	}
	return nil, fmt.Errorf("embed: daemon connection lost: %w", lastErr)
}

// replyPayload splits a reply into its payload or its error.
func replyPayload(body []byte) ([]byte, error) {
	switch body[0] {
	case stOK:
		return body[1:], nil
	case stWrongModel:
		var h helloReply
		json.Unmarshal(body[1:], &h)
		return nil, &errWrongModel{served: h}
	case stError:
		return nil, &errDaemonError{msg: string(body[1:])}
	}
	return nil, fmt.Errorf("%w: status 0x%02x", errFrame, body[0])
}

// exchange writes one frame and reads one back.
func exchange(conn net.Conn, req []byte) ([]byte, error) {
	if err := writeFrame(conn, req); err != nil {
		return nil, err
	}
	return readFrame(conn)
}

// get takes an idle connection or opens a new one.
func (c *daemonClient) get() (net.Conn, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errors.New("embed: encoder is closed")
	}
	if n := len(c.idle); n > 0 {
		conn := c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.mu.Unlock()
		return conn, nil
	}
	c.mu.Unlock()
	conn, hello, err := c.connect()
	if err != nil {
		return nil, err
	}
	if hello.Info.SHA256 != FormatPin(c.info.SHA256) {
		conn.Close()
		return nil, &errWrongModel{served: hello}
	}
	c.mu.Lock()
	c.pid = hello.PID // a restarted daemon has a new pid
	c.mu.Unlock()
	return conn, nil
}

// put returns a healthy connection to the idle list.
func (c *daemonClient) put(conn net.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || len(c.idle) >= maxIdleConns {
		conn.Close()
		return
	}
	c.idle = append(c.idle, conn)
}

// fallBack switches this client to the model in this process after the
// daemon failed with cause. A request error the daemon reported is not a
// reason to switch; a model whose pin differs from the one this encoder
// already announced is refused, so vectors never mix.
func (c *daemonClient) fallBack(cause error) (Encoder, error) {
	var reported *errDaemonError
	if errors.As(cause, &reported) {
		return nil, cause
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fallback != nil {
		return c.fallback, nil
	}
	enc, err := openRef(c.ref, c.manifest, c.runtimeLib)
	if err != nil {
		return nil, fmt.Errorf("embed: the daemon failed (%v) and the model cannot be loaded here: %w", cause, err)
	}
	if enc.Info().SHA256 != c.info.SHA256 {
		enc.Close()
		return nil, fmt.Errorf("%w: the daemon failed (%v) and the model here is %s (sha256 %s), not %s (sha256 %s)",
			ErrPinMismatch, cause, enc.Info().Name, shortPin(enc.Info().SHA256), c.info.Name, shortPin(c.info.SHA256))
	}
	c.fallback = enc
	for _, conn := range c.idle {
		conn.Close()
	}
	c.idle = nil
	return enc, nil
}

// connect opens a connection that said hello to a daemon serving this
// client's model, starting a daemon when none is running and replacing
// an idle one that serves another model.
func (c *daemonClient) connect() (net.Conn, helloReply, error) {
	conn, hello, err := c.dial()
	if err == nil {
		return conn, hello, nil
	}
	var wrong *errWrongModel
	switch {
	case errors.As(err, &wrong):
		if !stopIfIdle(c.socket) {
			return nil, hello, err
		}
	case !noDaemon(err):
		return nil, hello, err
	}
	return c.start()
}

// dial connects and says hello.
func (c *daemonClient) dial() (net.Conn, helloReply, error) {
	var hello helloReply
	conn, err := net.DialTimeout("unix", c.socket, 2*time.Second)
	if err != nil {
		return nil, hello, err
	}
	fail := func(err error) (net.Conn, helloReply, error) {
		conn.Close()
		return nil, hello, err
	}
	if err := sameUser(conn); err != nil {
		return fail(err)
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	body, err := exchange(conn, encodeHello(c.ref, os.Getpid()))
	if err != nil {
		return fail(fmt.Errorf("embed: daemon hello: %w", err))
	}
	conn.SetDeadline(time.Time{})
	payload, err := replyPayload(body)
	var wrong *errWrongModel
	if errors.As(err, &wrong) {
		return fail(err)
	}
	if err != nil {
		return fail(fmt.Errorf("embed: daemon hello: %w", err))
	}
	if err := json.Unmarshal(payload, &hello); err != nil {
		return fail(fmt.Errorf("%w: hello reply: %v", errFrame, err))
	}
	if c.ref.Kind == refONNX && hello.Info.SHA256 != c.ref.Pin {
		// The daemon agreed, but the pins say otherwise: never trust it.
		return fail(&errWrongModel{served: hello})
	}
	return conn, hello, nil
}

// noDaemon reports a dial error that means nobody listens: no socket
// file, or a socket left behind by a daemon that died.
func noDaemon(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED)
}

// start launches a daemon for this client's model and waits for it.
func (c *daemonClient) start() (net.Conn, helloReply, error) {
	if len(DaemonArgv) == 0 {
		return nil, helloReply{}, errors.New("embed: no daemon is running and this program cannot start one")
	}
	if err := prepareSocketDir(c.socket); err != nil {
		return nil, helloReply{}, err
	}
	exited, err := c.spawn()
	if err != nil {
		return nil, helloReply{}, err
	}
	deadline := time.Now().Add(daemonStartTimeout)
	// When the daemon we started finds the lock taken, the holder is either
	// a daemon still loading its model or one that is dying: the kernel
	// releases a killed daemon's lock a moment after its socket stops
	// answering. So we keep waiting for a listener, and start another
	// daemon now and then (each start that loses again costs an exec).
	var respawnAt time.Time
	respawnGap := 50 * time.Millisecond
	for delay := 5 * time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		conn, hello, err := c.dial()
		if err == nil || !noDaemon(err) {
			return conn, hello, err
		}
		select {
		case exitErr := <-exited:
			if !lostStartRace(exitErr) {
				return nil, hello, fmt.Errorf("embed: the daemon did not start: %v (see %s)", exitErr, daemonLogPath(c.socket))
			}
			exited = nil
			respawnAt = time.Now().Add(respawnGap)
			respawnGap = min(2*respawnGap, time.Second)
		default:
		}
		if time.Now().After(deadline) {
			return nil, hello, fmt.Errorf("embed: the daemon did not listen on %s within %s", c.socket, daemonStartTimeout)
		}
		if exited == nil && time.Now().After(respawnAt) {
			if exited, err = c.spawn(); err != nil {
				return nil, hello, err
			}
		}
		time.Sleep(delay)
	}
}

// lostStartRace reports the exit of a daemon that found another one
// already holding the socket.
func lostStartRace(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && exit.ExitCode() == DaemonExitRunning
}

// spawn starts the daemon detached from this process (its own session, no
// terminal), logging to a file beside the socket. The returned channel
// yields its exit status if it exits while this process still runs.
func (c *daemonClient) spawn() (<-chan error, error) {
	args := append(append([]string(nil), DaemonArgv[1:]...), daemonRunArgs(c.socket, c.ref, c.runtimeLib)...)
	cmd := exec.Command(DaemonArgv[0], args...)
	logPath := daemonLogPath(c.socket)
	if st, err := os.Stat(logPath); err == nil && st.Size() > 1<<20 {
		os.Truncate(logPath, 0)
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("embed: daemon log: %w", err)
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// The same heap settings as tuneCHeap, but from the first malloc on.
	cmd.Env = append(daemonEnviron(os.Environ()),
		"GLIBC_TUNABLES=glibc.malloc.arena_max=1:glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1048576")
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("embed: start daemon: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return exited, nil
}

// daemonEnviron is the environment a daemon starts with: what locating
// files and running needs, and no secret. The daemon outlives the process
// that starts it, which may hold a passphrase or a session in its
// environment; only text and vectors are ever the daemon's business.
func daemonEnviron(env []string) []string {
	keep := map[string]bool{"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "LANG": true,
		"TMPDIR": true, "XDG_RUNTIME_DIR": true, "LD_LIBRARY_PATH": true, "GODEBUG": true, "GOMAXPROCS": true}
	var out []string
	for _, kv := range env {
		key, _, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(key)
		secret := strings.Contains(upper, "PASS") || strings.Contains(upper, "KEY") ||
			strings.Contains(upper, "SECRET") || strings.Contains(upper, "SESSION") || strings.Contains(upper, "TOKEN")
		switch {
		case secret:
		case keep[key], strings.HasPrefix(key, "LC_"), strings.HasPrefix(key, "COMPARTMENT_"):
			out = append(out, kv)
		}
	}
	return out
}

// daemonRunArgs are the flags `embed-daemon run` receives from a client
// starting it: --socket, --model (a resolved model: "static", a test
// encoder's name, or an ONNX model's directory) and --runtime-lib.
func daemonRunArgs(socket string, ref modelRef, runtimeLib string) []string {
	model := ref.Name
	if ref.Kind == refONNX {
		model = ref.Dir
	}
	args := []string{"--socket", socket, "--model", model}
	if runtimeLib != "" {
		args = append(args, "--runtime-lib", runtimeLib)
	}
	return args
}

// DaemonStatusAt asks the daemon on socket (empty: [DaemonSocketPath]) how
// it is; a daemon that is not running gives Running false and no error.
func DaemonStatusAt(socket string) (DaemonStatus, error) {
	if socket == "" {
		socket = DaemonSocketPath()
	}
	var st DaemonStatus
	payload, err := oneShot(socket, []byte{opStatus})
	if err != nil {
		if noDaemon(err) {
			return DaemonStatus{Running: false, Socket: socket}, nil
		}
		return st, err
	}
	if err := json.Unmarshal(payload, &st); err != nil {
		return st, fmt.Errorf("%w: status: %v", errFrame, err)
	}
	st.Socket = socket
	return st, nil
}

// StopDaemon asks the daemon on socket (empty: [DaemonSocketPath]) to exit
// and waits until it has released the socket. It reports whether a daemon
// was running.
func StopDaemon(socket string) (bool, error) {
	if socket == "" {
		socket = DaemonSocketPath()
	}
	if _, err := oneShot(socket, []byte{opStop}); err != nil {
		if noDaemon(err) {
			return false, nil
		}
		return true, err
	}
	return true, waitGone(socket, 10*time.Second)
}

// stopIfIdle stops the daemon on socket when it has no client, so a
// client that needs another model can replace it; it reports success.
func stopIfIdle(socket string) bool {
	st, err := DaemonStatusAt(socket)
	if err != nil || !st.Running || st.Clients > 0 {
		return false
	}
	_, err = StopDaemon(socket)
	return err == nil
}

// waitGone waits until nothing answers on socket.
func waitGone(socket string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		conn, err := net.Dial("unix", socket)
		if err != nil {
			return nil
		}
		conn.Close()
		if time.Now().After(deadline) {
			return fmt.Errorf("embed: the daemon on %s did not stop within %s", socket, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// oneShot sends one request on a fresh connection and returns the ok
// payload.
func oneShot(socket string, req []byte) ([]byte, error) {
	conn, err := net.DialTimeout("unix", socket, 2*time.Second)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := sameUser(conn); err != nil {
		return nil, err
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	body, err := exchange(conn, req)
	if err != nil {
		return nil, fmt.Errorf("embed: daemon: %w", err)
	}
	return replyPayload(body)
}
