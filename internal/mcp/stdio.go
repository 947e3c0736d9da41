package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// stdioSession is the one client of a stdio server, as mcp-go's own stdio
// transport registers it: initialized after initialize, a log level, and
// a channel for server notifications (written by [stdio.notifications]).
type stdioSession struct {
	initialized atomic.Bool
	level       atomic.Value // mcpgo.LoggingLevel
	notify      chan mcpgo.JSONRPCNotification
}

func (s *stdioSession) SessionID() string { return "stdio" }

func (s *stdioSession) NotificationChannel() chan<- mcpgo.JSONRPCNotification { return s.notify }

func (s *stdioSession) Initialize() {
	s.level.Store(mcpgo.LoggingLevelError)
	s.initialized.Store(true)
}

func (s *stdioSession) Initialized() bool { return s.initialized.Load() }

func (s *stdioSession) SetLogLevel(level mcpgo.LoggingLevel) { s.level.Store(level) }

func (s *stdioSession) GetLogLevel() mcpgo.LoggingLevel {
	if l, ok := s.level.Load().(mcpgo.LoggingLevel); ok {
		return l
	}
	return mcpgo.LoggingLevelError
}

// stdio serves newline-delimited JSON-RPC with no goroutine hand-off on
// a request's way: the goroutine that reads a message handles it and
// writes the response itself, and reads the next one. mcp-go's stdio
// transport passed every message through two hand-offs (a reader
// goroutine per line, then a worker queue for tool calls or a goroutine
// per other request), and this package's size limit added a pipe and a
// goroutine in front. A request that runs longer than [handOver] hands
// the reading to a new goroutine, so long calls do not hold up the next.
type stdio struct {
	mcp  *server.MCPServer
	out  *lockedWriter
	log  func(format string, args ...any)
	sess stdioSession
	// ours reports whether a tool result is one [Server.wrap] made and
	// [appendToolResult] may encode (nil: none is).
	ours func(*mcpgo.CallToolResult) bool
	bufs sync.Pool // *bytes.Buffer for encoding responses

	mu      sync.RWMutex // held for reading by every request in flight
	stopped bool         // set under mu when serve returns: handle nothing more
}

// serve reads in until it ends or ctx is cancelled. Requests in flight are
// answered before serve returns; a read blocked on in is abandoned (as
// mcp-go's transport abandons it).
func (s *stdio) serve(ctx context.Context, in io.Reader) error {
	s.sess.notify = make(chan mcpgo.JSONRPCNotification, 100)
	if err := s.mcp.RegisterSession(ctx, &s.sess); err != nil {
		return fmt.Errorf("register session: %w", err)
	}
	defer s.mcp.UnregisterSession(ctx, s.sess.SessionID())
	ctx, cancel := context.WithCancel(s.mcp.WithContext(ctx, &s.sess))
	defer cancel()
	go s.notifications(ctx)

	done := make(chan error, 1) // from the reader that stops
	f := newLineFramer(in, MaxMessageBytes)
	go s.read(ctx, f, done)
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.mu.Lock() // wait for the requests in flight
	s.stopped = true
	s.mu.Unlock()
	if err == io.EOF {
		return nil
	}
	return err
}

// read is the one reader of f at any time. It serves each message itself
// and reads on, except that a request still running after [handOver]
// hands the reading to a new reader (and this goroutine ends with that
// request). The reader that stops sends why on done.
func (s *stdio) read(ctx context.Context, f *lineFramer, done chan<- error) {
	for {
		msg, tooLong, err := f.next()
		if err != nil {
			done <- err
			return
		}
		if ctx.Err() != nil {
			return // serve has returned or is returning
		}
		if tooLong > 0 || !isRequest(msg) {
			if err := s.message(ctx, msg, tooLong); err != nil {
				done <- err
				return
			}
			continue
		}
		if !s.request(ctx, msg, func() { go s.read(ctx, f, done) }) {
			return // a new reader took over
		}
	}
}

// handOver is how long a request runs before the next message is read
// beside it: an agent's parallel tool calls, a ping or a search during a
// long memory_store_many still run side by side, while a short call (a
// search takes a few milliseconds) is served without starting another
// goroutine, which cost about a tenth of a search call in CPU and time
// when every request started the next reader.
const handOver = 10 * time.Millisecond

// request serves msg unless serve has returned. If it is still running
// after handOver, next starts a new reader, and request reports false: the
// caller must not read again.
func (s *stdio) request(ctx context.Context, msg []byte, next func()) (readOn bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.stopped {
		return false
	}
	// msg is the framer's buffer, which the reader that takes over may
	// overwrite while this request runs.
	msg = bytes.Clone(msg)
	t := time.AfterFunc(handOver, func() {
		s.mu.RLock() // the new reader may not start after serve returned
		defer s.mu.RUnlock()
		if !s.stopped {
			next()
		}
	})
	if err := s.message(ctx, msg, 0); err != nil {
		s.log("write response: %v", err)
	}
	return t.Stop()
}

// isRequest reports whether msg is JSON with a non-null id (a request, or a
// client's response to the server, which mcp-go serves the same way).
func isRequest(msg []byte) bool {
	var base struct {
		ID json.RawMessage `json:"id"`
	}
	return json.Unmarshal(msg, &base) == nil && len(base.ID) > 0 && string(base.ID) != "null"
}

// message handles one message (or one over the size limit) and writes its
// response, if it has one. Only a failed write is returned.
func (s *stdio) message(ctx context.Context, msg []byte, tooLong int64) error {
	if tooLong > 0 {
		_, err := s.out.Write(tooLongResponse(tooLong, MaxMessageBytes))
		return err
	}
	if len(bytes.TrimSpace(msg)) == 0 {
		return nil
	}
	var resp mcpgo.JSONRPCMessage
	if !json.Valid(msg) {
		resp = mcpgo.NewJSONRPCError(mcpgo.NewRequestId(nil), mcpgo.PARSE_ERROR, "Parse error", nil)
	} else {
		resp = s.handle(ctx, msg)
	}
	if resp == nil { // a notification
		return nil
	}
	return s.write(resp)
}

// handle runs the protocol server on one message, turning a panic into an
// internal error for a request (with its id) and into nothing for a
// notification.
func (s *stdio) handle(ctx context.Context, msg []byte) (resp mcpgo.JSONRPCMessage) {
	defer func() {
		if r := recover(); r != nil {
			s.log("panic recovered in stdio message handler: %v", r)
			var base struct {
				ID any `json:"id,omitempty"`
			}
			if json.Unmarshal(msg, &base) == nil && base.ID != nil {
				resp = mcpgo.NewJSONRPCError(mcpgo.NewRequestId(base.ID), mcpgo.INTERNAL_ERROR, fmt.Sprintf("internal panic: %v", r), nil)
			} else {
				resp = nil
			}
		}
	}()
	return s.mcp.HandleMessage(ctx, msg)
}

// write encodes a message and writes it with its newline in one Write.
func (s *stdio) write(resp any) error {
	buf, _ := s.bufs.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	defer func() {
		if buf.Cap() <= 1<<20 { // do not keep one huge reply's buffer
			buf.Reset()
			s.bufs.Put(buf)
		}
	}()
	if r, ok := resp.(mcpgo.JSONRPCResponse); ok && s.ours != nil {
		if tr, ok := r.Result.(*mcpgo.CallToolResult); ok && s.ours(tr) {
			if b, ok := appendToolResult(buf.AvailableBuffer(), r, tr); ok {
				buf.Write(b)
				_, err := s.out.Write(buf.Bytes())
				return err
			}
		}
	}
	if err := json.NewEncoder(buf).Encode(resp); err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	_, err := s.out.Write(buf.Bytes())
	return err
}

// notifications writes what the protocol server sends on its own (none of
// this server's tools sends any today; mcp-go may, e.g. a list change).
func (s *stdio) notifications(ctx context.Context) {
	for {
		select {
		case n := <-s.sess.notify:
			b, err := json.Marshal(n)
			if err != nil {
				s.log("encode notification: %v", err)
				continue
			}
			if _, err := s.out.Write(append(b, '\n')); err != nil {
				s.log("write notification: %v", err)
			}
		case <-ctx.Done():
			return
		}
	}
}

// appendToolResult appends the JSON-RPC response of a tool result this
// server made itself ([Server.wrap]: one text content and the same bytes
// as structured content, which json.Marshal produced compact and
// HTML-escaped), byte for byte what json.Marshal of resp would write, and
// reports whether it could. encoding/json would build a map for the
// result (mcp-go's CallToolResult.MarshalJSON), then rescan the result
// and the structured content twice to compact them: a fifth of the
// server's own time per search call besides the search.
func appendToolResult(dst []byte, resp mcpgo.JSONRPCResponse, r *mcpgo.CallToolResult) ([]byte, bool) {
	raw, ok := r.StructuredContent.(json.RawMessage)
	if !ok || r.IsError || r.Meta != nil || r.ResultType != "" || len(r.InputRequests) > 0 ||
		r.RequestState != "" || len(r.RawStructuredContent) > 0 || len(r.Content) != 1 || resp.JSONRPC != mcpgo.JSONRPC_VERSION {
		return dst, false
	}
	tc, ok := r.Content[0].(mcpgo.TextContent)
	if !ok || tc.Annotations != nil || tc.Meta != nil || tc.Type != "text" {
		return dst, false
	}
	id, err := json.Marshal(resp.ID)
	if err != nil {
		return dst, false
	}
	text, err := json.Marshal(tc.Text)
	if err != nil {
		return dst, false
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"result":{"content":[{"type":"text","text":`...)
	dst = append(dst, text...)
	dst = append(dst, `}],"structuredContent":`...)
	dst = append(dst, raw...)
	dst = append(dst, "}}\n"...)
	return dst, true
}
