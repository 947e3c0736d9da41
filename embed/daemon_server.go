package embed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"runtime"
	"sync"
	"time"
)

// DaemonOptions configures [RunDaemon].
type DaemonOptions struct {
	// Socket is the path to listen on; empty means [DaemonSocketPath].
	Socket string
	// Model is the model to serve.
	Model LoadOptions
	// Idle is how long to wait for a client after the last one leaves;
	// zero means [DaemonIdle].
	Idle time.Duration
	// Log receives one line per start, stop and failed connection; nil
	// discards.
	Log io.Writer
}

// DaemonStatus is what `compartment embed-daemon status --json` prints.
type DaemonStatus struct {
	Running bool    `json:"running"`
	PID     int     `json:"pid"`
	Model   string  `json:"model"`
	SHA256  string  `json:"sha256,omitempty"`
	RSSMB   float64 `json:"rss_mb"`
	Clients int     `json:"clients"`
	UptimeS float64 `json:"uptime_s"`
	Socket  string  `json:"socket,omitempty"`
}

// daemon is one running server.
type daemon struct {
	enc     Encoder
	ref     modelRef
	hello   helloReply
	started time.Time
	idle    time.Duration
	log     *log.Logger
	stop    context.CancelFunc

	mu       sync.Mutex
	clients  int         // connections that said hello and are still open
	timer    *time.Timer // fires the idle exit while clients == 0
	inflight int         // requests being embedded
	trimmer  *time.Timer // trims memory after a quiet spell

	// cores admits one inference per core at a time: more would not be
	// faster (each runs on one thread) but would hold more buffers.
	cores chan struct{}
}

// trimAfter is the quiet spell after the last request before the daemon
// hands its scratch memory back: an idle daemon is small, while requests
// in a session keep reusing warm buffers (a fresh page costs a fault).
const trimAfter = 3 * time.Second

// RunDaemon loads the model once and serves it on a Unix socket until ctx
// ends, a client asks it to stop, or nobody has used it for the idle time.
// It returns [ErrDaemonRunning] (without loading anything) when another
// daemon already serves the socket. A leftover socket from a daemon that
// died is replaced.
func RunDaemon(ctx context.Context, opts DaemonOptions) error {
	if !daemonSupported {
		return ErrDaemonUnsupported
	}
	socket := opts.Socket
	if socket == "" {
		socket = DaemonSocketPath()
	}
	if err := prepareSocketDir(socket); err != nil {
		return err
	}
	lock, err := lockDaemon(socket)
	if err != nil {
		return err
	}
	defer lock.Close()
	tuneCHeap()
	ref, m, err := resolveModel(opts.Model)
	if err != nil {
		return err
	}
	enc, err := openRef(ref, m, opts.Model.RuntimeLib)
	if err != nil {
		return err
	}
	defer enc.Close()
	// Holding the lock means any socket file here is a dead daemon's.
	if err := os.Remove(socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("embed: remove stale socket: %w", err)
	}
	ln, err := net.Listen("unix", socket)
	if err != nil {
		return fmt.Errorf("embed: listen: %w", err)
	}
	defer os.Remove(socket)
	if err := os.Chmod(socket, 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("embed: socket permissions: %w", err)
	}
	return newDaemon(enc, ref, opts).serve(ctx, ln)
}

func newDaemon(enc Encoder, ref modelRef, opts DaemonOptions) *daemon {
	idle := opts.Idle
	if idle == 0 {
		idle = DaemonIdle()
	}
	logTo := opts.Log
	if logTo == nil {
		logTo = io.Discard
	}
	d := &daemon{enc: enc, ref: ref, started: time.Now(), idle: idle,
		log:   log.New(logTo, "embed-daemon: ", log.LstdFlags),
		cores: make(chan struct{}, runtime.GOMAXPROCS(0))}
	d.hello = helloReply{Version: daemonProtoVersion, PID: os.Getpid(), Model: ref, Info: toWire(enc.Info())}
	return d
}

// serve accepts connections until the daemon is told to stop.
func (d *daemon) serve(ctx context.Context, ln net.Listener) error {
	ctx, d.stop = context.WithCancel(ctx)
	defer d.stop()
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	d.mu.Lock()
	d.timer = time.AfterFunc(d.idle, d.idleExit)
	d.trimmer = time.AfterFunc(time.Hour, d.trimIfQuiet)
	d.trimmer.Stop()
	d.mu.Unlock()
	trimResident(true)
	d.log.Printf("serving %s (sha256 %s) on %s, pid %d", d.hello.Info.Name, d.hello.Info.SHA256, ln.Addr(), os.Getpid())
	var wg sync.WaitGroup
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			d.log.Printf("accept: %v", err)
			time.Sleep(10 * time.Millisecond) // e.g. out of file descriptors
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.handle(ctx, c)
		}()
	}
	// In-flight requests finish; idle connections are closed by handle.
	wg.Wait()
	d.log.Printf("stopped after %s", time.Since(d.started).Round(time.Second))
	return nil
}

// idleExit stops the daemon if still nobody is connected.
func (d *daemon) idleExit() {
	d.mu.Lock()
	idle := d.clients == 0
	d.mu.Unlock()
	if idle {
		d.log.Printf("no client for %s, exiting", d.idle)
		d.stop()
	}
}

// join and leave count clients and arm the idle timer when the last
// leaves.
func (d *daemon) join() {
	d.mu.Lock()
	d.clients++
	d.timer.Stop()
	d.mu.Unlock()
}

// working brackets one embedding request: it waits for a free core, and
// the last request out arms the memory trim.
func (d *daemon) working(delta int) {
	if delta > 0 {
		d.cores <- struct{}{}
	} else {
		<-d.cores
	}
	d.mu.Lock()
	d.inflight += delta
	if d.inflight == 0 {
		d.trimmer.Reset(trimAfter)
	}
	d.mu.Unlock()
}

// trimIfQuiet gives scratch memory back unless requests came in since.
func (d *daemon) trimIfQuiet() {
	d.mu.Lock()
	quiet := d.inflight == 0
	d.mu.Unlock()
	if quiet {
		trimResident(false)
	}
}

func (d *daemon) leave() {
	d.mu.Lock()
	d.clients--
	if d.clients == 0 {
		d.timer.Reset(d.idle)
	}
	d.mu.Unlock()
}

// handle serves one connection, request after request, until the client
// goes away (however abruptly) or the daemon stops.
func (d *daemon) handle(ctx context.Context, c net.Conn) {
	defer c.Close()
	if err := sameUser(c); err != nil {
		d.log.Print(err)
		return
	}
	stopWatch := context.AfterFunc(ctx, func() { c.Close() })
	defer stopWatch()
	joined := false
	defer func() {
		if joined {
			d.leave()
		}
	}()
	for {
		body, err := readFrame(c)
		if err != nil {
			if !errors.Is(err, io.EOF) && ctx.Err() == nil {
				d.log.Printf("client: %v", err)
			}
			return
		}
		reply, hello := d.answer(body, joined)
		if hello && !joined {
			joined = true
			d.join()
		}
		if err := writeFrame(c, reply); err != nil {
			return // the client left mid-request; nothing to clean up
		}
		if body[0] == opStop {
			d.stop()
			return
		}
	}
}

// answer handles one request; hello reports a successful hello.
func (d *daemon) answer(body []byte, joined bool) (reply []byte, hello bool) {
	op, rest := body[0], body[1:]
	switch {
	case op == opHello:
		h, err := decodeHello(rest)
		if err != nil {
			return encodeError(err), false
		}
		if !d.serves(h.Model) {
			return encodeJSON(stWrongModel, d.hello), false
		}
		return encodeJSON(stOK, d.hello), true
	case op == opStatus:
		return encodeJSON(stOK, d.status()), false
	case op == opStop:
		return []byte{stOK}, false
	case !joined:
		return encodeError(errors.New("embed: hello first")), false
	case op == opDocs:
		d.working(+1)
		defer d.working(-1)
		return d.embedDocs(rest), false
	case op == opQuery:
		d.working(+1)
		defer d.working(-1)
		return d.embedQuery(rest), false
	}
	return encodeError(fmt.Errorf("embed: unknown op 0x%02x", op)), false
}

// serves reports whether the client's model is the one loaded here: the
// same kind and pin, and for ONNX models the same files.
func (d *daemon) serves(want modelRef) bool {
	if want.Kind != d.ref.Kind {
		return false
	}
	switch want.Kind {
	case refONNX:
		return want.Pin == d.hello.Info.SHA256 && want.Dir == d.ref.Dir
	case refTest:
		return want.Name == d.ref.Name
	}
	return want.Build == d.ref.Build
}

func (d *daemon) embedDocs(body []byte) []byte {
	pin, texts, err := decodeDocsRequest(body)
	if err != nil {
		return encodeError(err)
	}
	if pin != d.enc.Info().SHA256 {
		return encodeJSON(stWrongModel, d.hello)
	}
	docs, err := d.enc.EmbedDocuments(texts)
	if err != nil {
		return encodeError(err)
	}
	return encodeDocsReply(docs)
}

func (d *daemon) embedQuery(body []byte) []byte {
	pin, text, err := decodeQueryRequest(body)
	if err != nil {
		return encodeError(err)
	}
	if pin != d.enc.Info().SHA256 {
		return encodeJSON(stWrongModel, d.hello)
	}
	v, err := d.enc.EmbedQuery(text)
	if err != nil {
		return encodeError(err)
	}
	return encodeQueryReply(v)
}

func (d *daemon) status() DaemonStatus {
	d.mu.Lock()
	clients := d.clients
	d.mu.Unlock()
	return DaemonStatus{Running: true, PID: os.Getpid(), Model: d.hello.Info.Name, SHA256: d.hello.Info.SHA256,
		RSSMB: residentMB(), Clients: clients, UptimeS: time.Since(d.started).Seconds()}
}
