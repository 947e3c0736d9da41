package dash

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzRequestTarget sends arbitrary request targets (path and query)
// through the whole handler, guard included, with and without the session
// cookie. Whatever the target: the security headers are set, nothing is
// served without the cookie, nothing fails with a 5xx, and no page carries
// a script tag but the dashboard's own (what a reflected parameter would
// need), and no redirect leaves the dashboard.
func FuzzRequestTarget(f *testing.F) {
	r := newRig(f)
	cookie := r.login()
	host := strings.TrimPrefix(r.url, "http://")
	h := r.srv.Handler()
	for _, seed := range append(r.routes(), "/memory/"+strings.Repeat("f", 40), "/search?q=%3Cscript%3E&tag=a,b,,c", "/search?q=%ff%fe",
		"/graph?as_of=0000-00-00", "/memories?day=2026-02-30", "/api/search?q=x&k=-1", "/static/../../etc/passwd", "//evil.example/",
		"/login?token=", "/%2e%2e/", "/search?q="+strings.Repeat("é", 1200)) {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, target string, withCookie bool) {
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n")))
		if err != nil {
			return // not a request a server would ever see
		}
		if withCookie {
			req.AddCookie(cookie)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		res := rec.Result()
		if res.Header.Get("Content-Security-Policy") != contentSecurityPolicy || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("GET %q: security headers missing", target)
		}
		switch {
		case !withCookie && res.StatusCode != http.StatusForbidden:
			t.Fatalf("GET %q without a session: %d, want 403", target, res.StatusCode)
		case res.StatusCode >= 500:
			t.Fatalf("GET %q: %d: %s", target, res.StatusCode, rec.Body.String())
		}
		if loc := res.Header.Get("Location"); loc != "" && (!strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, "/\\")) {
			t.Fatalf("GET %q redirects off the dashboard, to %q", target, loc)
		}
		body := rec.Body.String()
		switch ct := res.Header.Get("Content-Type"); {
		case res.StatusCode >= 300 && res.StatusCode < 400:
		case strings.HasPrefix(ct, "text/html"):
			if n := strings.Count(strings.ToLower(body), "<script"); n != 1 {
				t.Fatalf("GET %q: %d script tags in the page", target, n)
			}
		case strings.HasPrefix(ct, "application/json"):
			if strings.ContainsAny(body, "<>") {
				t.Fatalf("GET %q: unescaped markup in JSON: %s", target, body)
			}
		}
	})
}
