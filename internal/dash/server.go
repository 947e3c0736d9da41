package dash

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// Reader is everything the dashboard may do with a vault: read. An open
// *vault.Vault satisfies it; nothing that writes is in it.
type Reader interface {
	Status() (vault.Status, error)
	Records() ([]*vault.Record, error)
	Search(req vault.SearchRequest) ([]vault.SearchHit, error)
	Get(id string) (*vault.Record, error)
	Relations(q vault.RelationQuery) (vault.RelationResult, error)
	AuditVerify() (vault.AuditReport, error)
	AuditLog(target string, limit int) ([]vault.AuditEntry, error)
	// Version grows with every change to the vault's contents.
	Version() (uint64, error)
}

// Options configure a [Server].
type Options struct {
	// Open returns the vault, or an error wrapping vault.ErrLocked while it
	// is locked. It is called for every request, so a vault unlocked or
	// locked while the dashboard runs is seen at the next page.
	Open func() (Reader, error)
	// VaultPath and Caller are shown in the page header.
	VaultPath string
	Caller    string
	// Now is the clock (tests set it); nil is the real one.
	Now func() time.Time
}

// Server is one dashboard: a guard and the pages behind it.
type Server struct {
	opts  Options
	guard *guard
	token string
	pages *pages

	mu   sync.Mutex
	addr string // "127.0.0.1:port" once bound
}

// New returns a server with a fresh one-time login token. It does not
// listen yet.
func New(opts Options) (*Server, error) {
	if opts.Open == nil {
		return nil, errors.New("dash: no vault to show")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	token, err := randomSecret()
	if err != nil {
		return nil, fmt.Errorf("dash: login token: %w", err)
	}
	s := &Server{opts: opts, token: token, guard: &guard{token: []byte(token), now: opts.Now}}
	if s.pages, err = newPages(s); err != nil {
		return nil, err
	}
	return s, nil
}

// Listen binds 127.0.0.1 on port (0: a free one). Only that exact
// address and port are accepted in the Host header from then on.
func (s *Server) Listen(port int) (net.Listener, error) {
	if port < 0 || port > 65535 {
		return nil, fmt.Errorf("dash: port %d: use 1-65535, or 0 for a free one", port)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("dash: listen on 127.0.0.1:%d: %w", port, err)
	}
	s.mu.Lock()
	s.addr = ln.Addr().String()
	s.mu.Unlock()
	return ln, nil
}

// host is the one Host header value the server answers to.
func (s *Server) host() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// LoginURL is the link to open: it carries the one-time token.
func (s *Server) LoginURL() string {
	return "http://" + s.host() + loginPath + "?" + tokenParam + "=" + url.QueryEscape(s.token)
}

// Warm opens the vault and counts the overview now, so the first page
// after the link is opened is served from RAM. A locked vault is left for
// the pages to report.
func (s *Server) Warm() {
	if v, err := s.opts.Open(); err == nil {
		s.pages.currentOverview(v, false)
	}
}

// Handler is the whole dashboard, guard included.
func (s *Server) Handler() http.Handler { return s.protect(s.pages.mux) }

// Serve answers on ln until ctx ends, then lets requests in flight finish
// (for up to two seconds).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    32 << 10,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("dash: serve: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("dash: serve: %w", err)
	}
	return nil
}
