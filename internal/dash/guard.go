package dash

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"sync"
	"time"
)

// Guard constants. The cookie and the login path are the whole public
// surface before authentication.
const (
	cookieName = "compartment_dash"
	loginPath  = "/login"
	tokenParam = "token"
	// cookieLife bounds a session; the server usually stops long before.
	cookieLife = 12 * time.Hour
)

// contentSecurityPolicy lets a page load scripts, styles, images and
// data only from its own origin, never be framed, and never submit a form
// or set a base URL elsewhere. No inline script or style is allowed at all.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// guard is the authentication state: one login token, good once, and the
// session it becomes.
type guard struct {
	mu      sync.Mutex
	token   []byte // nil once exchanged
	session []byte // nil until the token is exchanged
	expires time.Time
	now     func() time.Time
}

// randomSecret returns 32 random bytes as URL-safe base64 (256 bits).
func randomSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// exchange trades the login token for a new session value, once. Every
// comparison is constant-time, and a wrong token costs the right one
// nothing (it stays good for the person who has it).
func (g *guard) exchange(token string) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.token == nil || subtle.ConstantTimeCompare(g.token, []byte(token)) != 1 {
		return "", false
	}
	session, err := randomSecret()
	if err != nil {
		return "", false
	}
	g.token = nil
	g.session = []byte(session)
	g.expires = g.now().Add(cookieLife)
	return session, true
}

// valid reports whether the request carries the live session cookie.
func (g *guard) valid(r *http.Request) bool {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.session == nil || g.now().After(g.expires) {
		return false
	}
	return subtle.ConstantTimeCompare(g.session, []byte(c.Value)) == 1
}

// setSecurityHeaders goes on every response, errors included.
func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// protect wraps the dashboard's routes in the guard. In order: the Host
// must be exactly the address bound (a rebinding DNS name pointing at
// 127.0.0.1 carries its own Host, and is refused with 421); only GET and
// HEAD are served (405); a request the browser says comes from another
// site or another local server is refused (403);
// the login path trades the token for the cookie and redirects to a clean
// URL; everything else needs the cookie (403).
func (s *Server) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w.Header())
		switch {
		case r.Host != s.host():
			plain(w, http.StatusMisdirectedRequest, "this dashboard answers only at its own address, http://"+s.host()+"/")
			return
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			w.Header().Set("Allow", "GET, HEAD")
			plain(w, http.StatusMethodNotAllowed, "the dashboard is read-only: only GET and HEAD are served")
			return
		case !ownRequest(r):
			plain(w, http.StatusForbidden, "requests from other sites and other local servers are refused")
			return
		case r.URL.Path == loginPath && r.Method != http.MethodGet:
			// A HEAD (a link preview, say) must not spend the token.
			w.Header().Set("Allow", "GET")
			plain(w, http.StatusMethodNotAllowed, "open the link with GET, in a browser")
			return
		case r.URL.Path == loginPath:
			s.login(w, r)
			return
		case !s.guard.valid(r):
			plain(w, http.StatusForbidden, "not signed in: open the link `compartment dash` printed (it works once; run it again for a new one)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ownRequest reports whether the browser says the request comes from the
// dashboard itself or from the user (a typed or opened link). A page on
// another port of 127.0.0.1 is "same-site", and SameSite cookies would go
// with it, so only "same-origin" and "none" pass; a client that sends no
// Sec-Fetch-Site header still needs the cookie.
func ownRequest(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "none", "same-origin":
		return true
	}
	return false
}

// login exchanges ?token= for the session cookie and redirects to the
// overview, so the token leaves the address bar and the history.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	session, ok := s.guard.exchange(r.URL.Query().Get(tokenParam))
	if !ok {
		plain(w, http.StatusForbidden, "this link is not valid (each link works once): run `compartment dash` again for a new one")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: session, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, MaxAge: int(cookieLife / time.Second),
	})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// plain writes a short text answer.
func plain(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	w.Write([]byte(msg + "\n"))
}
