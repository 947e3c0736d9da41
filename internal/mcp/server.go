package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// DefaultSweepEvery is how often expired memories are swept while serving.
const DefaultSweepEvery = time.Hour

// Options configure a [Server].
type Options struct {
	// VaultPath is the vault file; its settings file sits beside it.
	VaultPath string
	// Open opens the vault with a credential (the CLI passes caller, model
	// and clock). The server hands it to its [session.Keeper].
	Open session.OpenFunc
	// Keyfile returns the second factor for memory_unlock, or nil.
	Keyfile func() ([]byte, error)
	// Caller is reported by memory_status; the vault enforces it.
	Caller  string
	Version string
	// Log receives diagnostics; nil discards them. Never the protocol
	// stream.
	Log *slog.Logger
	// SweepEvery is the expiry sweep period; 0 means [DefaultSweepEvery].
	SweepEvery time.Duration
	// RetagHour is how long one hour of retag_interval_hours lasts; 0
	// means an hour (tests shorten it).
	RetagHour time.Duration
}

// Server is the MCP server over one vault.
type Server struct {
	opts    Options
	keeper  *session.Keeper
	mcp     *server.MCPServer
	log     *slog.Logger
	args    argSchemas // each tool's compiled input schema
	started time.Time

	mu        sync.Mutex
	lastCheck time.Time // last time a sweep was due, run or not
	lastSweep time.Time // last sweep that ran (expire_memories on)
	lastCall  time.Time
	swept     int // memories removed by sweeps since start

	// last is the latest result wrap made, which the stdio transport
	// encodes itself (appendToolResult); with concurrent in-process
	// callers it is just the latest, and any other is encoded as usual.
	last atomic.Pointer[mcpgo.CallToolResult]
}

// made reports whether r is the result wrap made last, and forgets it.
func (s *Server) made(r *mcpgo.CallToolResult) bool { return s.last.CompareAndSwap(r, nil) }

// New builds the server and registers every tool. It does not open the
// vault: that happens on the first call that needs it.
func New(opts Options) *Server {
	if opts.SweepEvery <= 0 {
		opts.SweepEvery = DefaultSweepEvery
	}
	if opts.Caller == "" {
		opts.Caller = "user"
	}
	tuneMemory()
	s := &Server{opts: opts, log: opts.Log, started: time.Now()}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s.keeper = session.NewKeeper(opts.VaultPath, s.openAndSweep)
	hooks := &server.Hooks{}
	hooks.AddAfterInitialize(func(_ context.Context, _ any, req *mcpgo.InitializeRequest, _ *mcpgo.InitializeResult) {
		c := req.Params.ClientInfo
		s.log.Info("client connected", "client", c.Name, "client_version", c.Version,
			"protocol", req.Params.ProtocolVersion, "caller", opts.Caller)
	})
	s.mcp = server.NewMCPServer("compartment", opts.Version,
		server.WithTitle("Compartment memory"),
		server.WithInstructions(Instructions),
		server.WithToolCapabilities(false),
		// No server-side output validation: it re-encodes and re-decodes
		// every reply (a sixth of a search call's time at 20k memories),
		// clients validate structuredContent against outputSchema
		// themselves, and the end-to-end tests run every tool through the
		// official SDK client, which does.
		server.WithRecovery(),
		server.WithHooks(hooks),
	)
	defs := s.tools()
	schemas, err := compileArgSchemas(defs)
	if err != nil {
		panic(err) // the tools' own schemas: a programming error
	}
	s.args = schemas
	for _, d := range defs {
		s.mcp.AddTool(d.tool(), s.wrap(d))
	}
	return s
}

// MCPServer exposes the protocol server (for in-process clients in tests).
func (s *Server) MCPServer() *server.MCPServer { return s.mcp }

// Keeper is the lock/unlock lifecycle the server uses.
func (s *Server) Keeper() *session.Keeper { return s.keeper }

// Serve speaks MCP over in and out until in ends or ctx is cancelled, then
// drops the vault (without locking it for other processes). The expiry
// sweep runs every SweepEvery meanwhile.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.sweepLoop(ctx)
	}()
	retagDone := make(chan struct{})
	go func() { defer close(retagDone); s.retagLoop(ctx) }()
	// Messages over MaxMessageBytes never reach the protocol server, which
	// would hold a whole line in memory however long it is.
	errLog := slog.NewLogLogger(s.log.Handler(), slog.LevelError)
	std := &stdio{mcp: s.mcp, out: &lockedWriter{w: out}, log: errLog.Printf, ours: s.made}
	err := std.serve(ctx, in)
	cancel()
	<-done
	<-retagDone
	if cerr := s.keeper.Close(); cerr != nil {
		s.log.Warn("close vault", "err", cerr)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("mcp: serve: %w", err)
	}
	return nil
}

// openAndSweep opens the vault for the keeper and runs the expiry sweep on
// open when expire_memories is on.
func (s *Server) openAndSweep(u vaultfmt.Unlock) (*vault.Vault, error) {
	v, err := s.opts.Open(u)
	if err != nil {
		return nil, err
	}
	s.sweep(v, "open")
	releaseOpenGarbage()
	return v, nil
}

// sweepLoop sweeps every SweepEvery while the server is in use. A period
// without any tool call is skipped: taking the vault from the keeper counts
// as use, and a sweep must not keep an idle vault from auto-locking. The
// first call after such a pause sweeps first ([Server.sweepIfDue]), and a
// locked vault is swept when it is next opened.
func (s *Server) sweepLoop(ctx context.Context) {
	t := time.NewTicker(s.opts.SweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.mu.Lock()
			used := s.lastCall.After(s.lastCheck)
			s.mu.Unlock()
			if !used || s.keeper.Locked() {
				continue
			}
			if v, err := s.keeper.Vault(); err == nil {
				s.sweep(v, "periodic")
			}
		}
	}
}

// noteCall records that a tool was called.
func (s *Server) noteCall() {
	s.mu.Lock()
	s.lastCall = time.Now()
	s.mu.Unlock()
}

// sweepIfDue sweeps before a call when the periodic sweep has not run for
// a whole period (the server was idle).
func (s *Server) sweepIfDue(v *vault.Vault) {
	s.mu.Lock()
	due := time.Since(s.lastCheck) >= s.opts.SweepEvery
	s.mu.Unlock()
	if due {
		s.sweep(v, "after a pause")
	}
}

// sweep removes expired memories if the vault's settings want it.
func (s *Server) sweep(v *vault.Vault, why string) {
	s.mu.Lock()
	s.lastCheck = time.Now()
	s.mu.Unlock()
	if !v.Config().Settings.ExpireMemories {
		return
	}
	ids, err := v.Expire()
	setMemoryLimit()
	s.mu.Lock()
	s.lastSweep = time.Now()
	s.swept += len(ids)
	s.mu.Unlock()
	if err != nil {
		s.log.Warn("expiry sweep failed", "when", why, "err", err)
		return
	}
	if len(ids) > 0 {
		s.log.Info("expired memories removed", "when", why, "count", len(ids))
	}
}

// toolDef is one tool: what the agent sees and what runs.
type toolDef struct {
	name, title, description string
	in, out                  schema
	readOnly, destructive    bool
	idempotent               bool
	// locked tools (status, lock, unlock) run without a vault.
	withoutVault func(ctx context.Context, args json.RawMessage) (any, error)
	// needsRead refuses a caller that may read no namespace at all: a
	// caller without grants must not lock the vault for every agent or
	// learn its counts.
	needsRead bool
	run       func(v *vault.Vault, args json.RawMessage) (any, error)
}

func (d toolDef) tool() mcpgo.Tool {
	f := false
	return mcpgo.Tool{
		Name:            d.name,
		Title:           d.title,
		Description:     d.description,
		RawInputSchema:  mustJSON(d.in),
		RawOutputSchema: mustJSON(d.out),
		Annotations: mcpgo.ToolAnnotation{
			Title:           d.title,
			ReadOnlyHint:    &d.readOnly,
			DestructiveHint: &d.destructive,
			IdempotentHint:  &d.idempotent,
			OpenWorldHint:   &f,
		},
	}
}

// wrap turns a definition into a handler: it takes the vault from the
// keeper on every call (so a lock elsewhere takes effect), and turns errors
// into tool errors the agent can read and act on.
func (s *Server) wrap(d toolDef) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		start := time.Now()
		s.noteCall()
		args, err := rawArgs(req)
		if err != nil {
			return mcpgo.NewToolResultError(err.Error()), nil
		}
		if err := s.args.check(d.name, args); err != nil {
			return mcpgo.NewToolResultError(err.Error()), nil
		}
		var out any
		if d.needsRead {
			err = s.checkReadsSomething(d.name)
		}
		switch {
		case err != nil:
		case d.withoutVault != nil:
			out, err = d.withoutVault(ctx, args)
		default:
			var v *vault.Vault
			if v, err = s.keeper.Vault(); err == nil {
				s.sweepIfDue(v)
				out, err = d.run(v, args)
				if !d.readOnly {
					setMemoryLimit() // a write may have grown the live heap
				}
			}
		}
		s.log.Debug("tool call", "tool", d.name, "ms", time.Since(start).Milliseconds(), "err", err)
		if err != nil {
			return mcpgo.NewToolResultError(s.message(err)), nil
		}
		text, merr := json.Marshal(out)
		if merr != nil {
			return nil, fmt.Errorf("mcp: %s: encode result: %w", d.name, merr)
		}
		// The structured content is the same bytes as the text: encoding
		// the result once instead of twice saves a fifth of a search
		// call's time when it returns many memories.
		res := mcpgo.NewToolResultStructured(json.RawMessage(text), string(text))
		s.last.Store(res)
		return res, nil
	}
}

// checkReadsSomething refuses a caller whose grants allow reading no
// namespace (vault.CheckReadsSomething, the rule the CLI uses too).
func (s *Server) checkReadsSomething(tool string) error {
	return vault.CheckReadsSomething(s.opts.VaultPath, s.opts.Caller, tool)
}

// rawArgs returns the call's arguments as JSON ("{}" when none were sent).
func rawArgs(req mcpgo.CallToolRequest) (json.RawMessage, error) {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments, nil
	}
	if req.Params.Arguments == nil {
		return json.RawMessage("{}"), nil
	}
	b, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return b, nil
}

// decode reads arguments into a struct, refusing unknown names (the input
// schema does too; this keeps handlers honest when validation is off).
func decode(args json.RawMessage, into any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: arguments: %v", vault.ErrInvalid, err)
	}
	return nil
}

// lockedMessage is what every tool but status and lock answers while the
// vault is locked.
const lockedMessage = "The memory vault is locked, so nothing can be recalled or stored right now. Ask the user to run `compartment unlock` in a terminal (or unlock it in the Compartment app), then call this tool again. Do not ask the user for the passphrase."

// message turns an error into text for the agent.
func (s *Server) message(err error) string {
	switch {
	case errors.Is(err, vault.ErrLocked):
		return lockedMessage
	case errors.Is(err, vault.ErrNotFound):
		return err.Error() + " (it may have been forgotten or expired; memory_search finds memories by content)"
	}
	return err.Error()
}
