package dash

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

var testPass = []byte("correct horse battery staple")

// xssText and xssSource are stored as memories: the dashboard must show
// them as text, never as markup.
const (
	xssText   = `Payload <script>alert(1)</script> and "><img src=x onerror=alert(2)> stays text`
	xssSource = `web <b onmouseover=alert(3)>page</b>`
)

// rig is a dashboard over a real vault in a temporary directory, opened
// read-only like the command does, served on a loopback port.
type rig struct {
	t       testing.TB
	path    string
	srv     *Server
	url     string // http://127.0.0.1:port
	ids     map[string]string
	reader  *vault.Vault
	openErr error // what Open answers instead of the vault, when set
	client  *http.Client
}

func newRig(t testing.TB) *rig {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memory.vault")
	opts := vault.Options{Unlock: vaultfmt.Unlock{Passphrase: testPass}, KDF: vaultfmt.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}}
	w, err := vault.Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, path: path, ids: map[string]string{}}
	for key, req := range map[string]vault.StoreRequest{
		"port":   {Text: "The staging database listens on port 5433", Source: "from chat", Tags: []string{"infra"}},
		"xss":    {Text: xssText, Source: xssSource, Tags: []string{`<svg onload=alert(4)>`}, Raw: true},
		"coffee": {Text: "Ana prefers her coffee black", Source: "from chat", Namespace: "home"},
	} {
		res, err := w.Store(req)
		if err != nil {
			t.Fatal(err)
		}
		r.ids[key] = res.ID
	}
	if _, err := w.Link(vault.LinkRequest{Subject: `<img src=x onerror=alert(5)>`, Predicate: "knows", Object: "Ana", Src: r.ids["coffee"]}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ro := opts
	ro.ReadOnly = true
	if r.reader, err = vault.Open(path, ro); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.reader.Close() })
	r.srv, err = New(Options{VaultPath: path, Caller: "user", Open: func() (Reader, error) {
		if r.openErr != nil {
			return nil, r.openErr
		}
		return r.reader, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := r.srv.Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(r.srv.Handler())
	hs.Listener.Close()
	hs.Listener = ln
	hs.Start()
	t.Cleanup(hs.Close)
	r.url = hs.URL
	r.client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return r
}

// do sends one request; host overrides the Host header when not "".
func (r *rig) do(method, path, host string, cookie *http.Cookie) (*http.Response, string) {
	r.t.Helper()
	req, err := http.NewRequest(method, r.url+path, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	res, err := r.client.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

// login trades the server's token for its cookie.
func (r *rig) login() *http.Cookie {
	r.t.Helper()
	u, _ := url.Parse(r.srv.LoginURL())
	res, _ := r.do("GET", u.RequestURI(), "", nil)
	if res.StatusCode != http.StatusSeeOther {
		r.t.Fatalf("login: %s", res.Status)
	}
	for _, c := range res.Cookies() {
		if c.Name == cookieName {
			return c
		}
	}
	r.t.Fatal("login set no session cookie")
	return nil
}

// routes are every page and API the dashboard has, with parameters.
func (r *rig) routes() []string {
	return []string{"/", "/search", "/search?q=staging+database", "/search?q=payload&ns=main&tag=infra&since=2020-01-01&until=2099-01-01&all=1",
		"/memories", "/memories?tag=infra", "/memories?superseded=1", "/memory/" + r.ids["port"], "/memory/" + r.ids["xss"],
		"/graph", "/graph?as_of=2026-01-01", "/tags", "/audit", "/api/search?q=port", "/api/graph", "/static/app.js", "/static/style.css"}
}

func checkSecurityHeaders(t *testing.T, what string, h http.Header) {
	t.Helper()
	want := map[string]string{
		"Content-Security-Policy": contentSecurityPolicy,
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
		"Cache-Control":           "no-store",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %s = %q, want %q", what, k, got, v)
		}
	}
	csp := h.Get("Content-Security-Policy")
	for _, part := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, part) {
			t.Errorf("%s: CSP lacks %s", what, part)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "*") {
		t.Errorf("%s: CSP allows too much: %s", what, csp)
	}
}

func TestEveryRouteNeedsTheSessionCookie(t *testing.T) {
	r := newRig(t)
	forged := &http.Cookie{Name: cookieName, Value: strings.Repeat("A", 43)}
	for _, path := range r.routes() {
		for _, c := range []*http.Cookie{nil, forged} {
			res, body := r.do("GET", path, "", c)
			if res.StatusCode != http.StatusForbidden {
				t.Errorf("GET %s with cookie %v: %s, want 403", path, c != nil, res.Status)
			}
			if strings.Contains(body, "staging") || strings.Contains(body, "Payload") {
				t.Errorf("GET %s without a session leaked vault content", path)
			}
			checkSecurityHeaders(t, "GET "+path, res.Header)
		}
	}
}

func TestTokenIsExchangedOnceForAStrictCookie(t *testing.T) {
	r := newRig(t)
	good, _ := url.Parse(r.srv.LoginURL())
	token := good.Query().Get(tokenParam)
	if len(token) < 43 {
		t.Fatalf("token %q is shorter than 256 bits", token)
	}
	for _, bad := range []string{"/login", "/login?token=", "/login?token=" + token[:len(token)-1], "/login?token=" + token + "x",
		"/login?token=" + strings.ToUpper(token), "/?token=" + token} {
		res, _ := r.do("GET", bad, "", nil)
		if res.StatusCode != http.StatusForbidden || len(res.Cookies()) != 0 {
			t.Errorf("GET %s: %s with %d cookies, want 403 and none", bad, res.Status, len(res.Cookies()))
		}
	}
	// A refused attempt does not burn the token; POSTing or HEADing it does
	// not use it.
	for _, m := range []string{"POST", "HEAD"} {
		if res, _ := r.do(m, good.RequestURI(), "", nil); res.StatusCode != http.StatusMethodNotAllowed || len(res.Cookies()) != 0 {
			t.Errorf("%s login: %s", m, res.Status)
		}
	}
	res, _ := r.do("GET", good.RequestURI(), "", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("login: %s to %q, want 303 to /", res.Status, res.Header.Get("Location"))
	}
	raw := res.Header.Get("Set-Cookie")
	for _, attr := range []string{"HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(raw, attr) {
			t.Errorf("session cookie %q lacks %s", raw, attr)
		}
	}
	if strings.Contains(raw, token) {
		t.Error("the cookie carries the URL token")
	}
	cookie := res.Cookies()[0]
	if again, _ := r.do("GET", good.RequestURI(), "", nil); again.StatusCode != http.StatusForbidden {
		t.Errorf("second use of the token: %s, want 403", again.Status)
	}
	if ok, body := r.do("GET", "/", "", cookie); ok.StatusCode != http.StatusOK || !strings.Contains(body, `id="n-live">3<`) {
		t.Errorf("overview with the cookie: %s", ok.Status)
	}
}

func TestOnlyGetAndHeadAreServed(t *testing.T) {
	r := newRig(t)
	cookie := r.login()
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "PROPFIND"} {
		for _, path := range []string{"/", "/api/search?q=port", "/memory/" + r.ids["port"]} {
			res, _ := r.do(m, path, "", cookie)
			if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %s (Allow %q), want 405", m, path, res.Status, res.Header.Get("Allow"))
			}
			checkSecurityHeaders(t, m+" "+path, res.Header)
		}
	}
	if res, body := r.do("HEAD", "/", "", cookie); res.StatusCode != http.StatusOK || body != "" {
		t.Errorf("HEAD /: %s with %d bytes", res.Status, len(body))
	}
}

func TestForeignHostIsMisdirected(t *testing.T) {
	r := newRig(t)
	cookie := r.login()
	port := strings.TrimPrefix(r.url, "http://127.0.0.1:")
	for _, host := range []string{"evil.example", "evil.example:" + port, "localhost:" + port, "127.0.0.1", "127.0.0.1:1",
		"[::1]:" + port, "127.0.0.2:" + port, "127.0.0.1:" + port + ".evil.example", "0x7f000001:" + port} {
		res, body := r.do("GET", "/", host, cookie)
		if res.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("Host %q: %s, want 421", host, res.Status)
		}
		if strings.Contains(body, "staging") {
			t.Errorf("Host %q: vault content in the answer", host)
		}
		checkSecurityHeaders(t, "Host "+host, res.Header)
	}
	for site, code := range map[string]int{"cross-site": 403, "same-site": 403, "bogus": 403, "same-origin": 200, "none": 200} {
		req, _ := http.NewRequest("GET", r.url+"/api/search?q=port", nil)
		req.AddCookie(cookie)
		req.Header.Set("Sec-Fetch-Site", site)
		res, err := r.client.Do(req)
		if err != nil || res.StatusCode != code {
			t.Errorf("Sec-Fetch-Site %s: %v %v, want %d", site, res.Status, err, code)
		}
	}
}

func TestNoWritePathIsReachable(t *testing.T) {
	r := newRig(t)
	before, err := os.ReadFile(r.path)
	if err != nil {
		t.Fatal(err)
	}
	config, _ := os.ReadFile(vault.ConfigPath(r.path))
	cookie := r.login()
	paths := append(r.routes(), "/api/store?text=x&source=y", "/api/forget?id="+r.ids["port"], "/store", "/forget/"+r.ids["port"],
		"/api/link", "/api/unlink", "/api/lock", "/memory/"+r.ids["port"]+"/forget", "/config", "/api/expire")
	for _, path := range paths {
		for _, m := range []string{"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"} {
			res, _ := r.do(m, path, "", cookie)
			if m != "GET" && m != "HEAD" && res.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("%s %s: %s", m, path, res.Status)
			}
			if res.StatusCode >= 500 {
				t.Errorf("%s %s: %s", m, path, res.Status)
			}
		}
	}
	after, _ := os.ReadFile(r.path)
	configAfter, _ := os.ReadFile(vault.ConfigPath(r.path))
	if !bytes.Equal(before, after) || !bytes.Equal(config, configAfter) {
		t.Error("serving the dashboard changed the vault or its settings")
	}
	st, err := r.reader.Status()
	if err != nil || st.Live != 3 {
		t.Errorf("after every request the vault holds %d memories (%v)", st.Live, err)
	}
}

func TestMemoriesAreShownAsText(t *testing.T) {
	r := newRig(t)
	cookie := r.login()
	for _, path := range []string{"/", "/memories", "/memory/" + r.ids["xss"], "/search?q=payload+stays+text", "/graph", "/tags", "/memories?tag=" + url.QueryEscape("<svg onload=alert(4)>")} {
		res, body := r.do("GET", path, "", cookie)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", path, res.Status)
		}
		for _, raw := range []string{"<script>alert", "<img src=x", "<b onmouseover", "<svg onload", "onerror=alert(2)>"} {
			if strings.Contains(body, raw) {
				t.Errorf("GET %s: the page contains %q unescaped", path, raw)
			}
		}
		if strings.Count(body, "<script") != 1 {
			t.Errorf("GET %s: %d script tags, want only the dashboard's own", path, strings.Count(body, "<script"))
		}
	}
	_, body := r.do("GET", "/memory/"+r.ids["xss"], "", cookie)
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") || !strings.Contains(body, "&#34;&gt;&lt;img src=x onerror=alert(2)&gt;") {
		t.Errorf("the memory page does not show the payload as escaped text:\n%s", body)
	}
	_, body = r.do("GET", "/api/search?q=payload+stays+text", "", cookie)
	if strings.Contains(body, "<script>") || !strings.Contains(body, `\u003cscript\u003e`) {
		t.Errorf("the search API does not escape markup in JSON: %s", body)
	}
	var ans searchAnswer
	if err := json.Unmarshal([]byte(body), &ans); err != nil || len(ans.Results) == 0 || !strings.HasPrefix(ans.Results[0].Text, xssText) {
		t.Errorf("the search API lost the payload's text: %v %+v", err, ans.Results)
	}
}

func TestPagesShowTheVault(t *testing.T) {
	r := newRig(t)
	cookie := r.login()
	for path, want := range map[string][]string{
		"/":                          {`id="n-live">3<`, `id="n-relations">1<`, `id="n-namespaces">2<`, `id="n-today">3<`, "<svg id=\"growth\""},
		"/search?q=staging+database": {"The staging database listens on port 5433", "p_vec", "p_lex", "importance"},
		"/memory/" + r.ids["coffee"]: {"Ana prefers her coffee black", "knows", "store"},
		"/tags":                      {"infra", "&lt;svg onload=alert(4)&gt;"},
		"/audit":                     {"Intact: 4 entries"},
		"/memories?ns=home":          {"1 live memories of your own with namespace home", "coffee"},
		"/graph?as_of=2026-01-01":    {"2 entities, 1 relations"},
	} {
		res, body := r.do("GET", path, "", cookie)
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", path, res.Status)
			continue
		}
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s lacks %q", path, w)
			}
		}
	}
	for query, want := range map[string]int{
		"/api/search?q=coffee+black&ns=home": 1, "/api/search?q=coffee+black&ns=main": 0,
		"/api/search?q=staging+database&tag=infra": 1, "/api/search?q=staging+database&tag=home": 0,
		"/api/search?q=staging+database&since=2000-01-01&until=2000-12-31": 0, "/api/search?q=staging+database&since=2000-01-01": 1,
	} {
		_, body := r.do("GET", query, "", cookie)
		var ans searchAnswer
		if err := json.Unmarshal([]byte(body), &ans); err != nil || len(ans.Results) != want {
			t.Errorf("GET %s: %d results, want %d (%v)", query, len(ans.Results), want, err)
		}
	}
	_, body := r.do("GET", "/api/graph", "", cookie)
	var g graph
	if err := json.Unmarshal([]byte(body), &g); err != nil || len(g.Nodes) != 2 || len(g.Edges) != 1 || g.Edges[0].Src != r.ids["coffee"] {
		t.Errorf("graph API: %v %+v", err, g)
	}
	for path, code := range map[string]int{
		"/memory/zzzz":                           http.StatusNotFound,
		"/memory/0123456789abcdef":               http.StatusNotFound,
		"/search?since=yesterday":                http.StatusBadRequest,
		"/api/search?q=x&k=1000":                 http.StatusBadRequest,
		"/graph?as_of=2026-13-01":                http.StatusBadRequest,
		"/search?q=" + strings.Repeat("a", 3000): http.StatusBadRequest,
		"/nothing-here":                          http.StatusNotFound,
	} {
		if res, _ := r.do("GET", path, "", cookie); res.StatusCode != code {
			t.Errorf("GET %s: %s, want %d", path, res.Status, code)
		}
	}
}

func TestLockedVaultShowsOnlyHowToUnlock(t *testing.T) {
	r := newRig(t)
	cookie := r.login()
	if r.do("GET", "/", "", cookie); r.srv.pages.cached[0] == nil {
		t.Fatal("the overview was not cached while unlocked")
	}
	r.openErr = fmt.Errorf("open: %w", vault.ErrLocked)
	for _, path := range []string{"/", "/search?q=port", "/memory/" + r.ids["port"], "/graph", "/tags", "/audit", "/memories"} {
		res, body := r.do("GET", path, "", cookie)
		if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, ">locked<") || !strings.Contains(body, "compartment unlock") {
			t.Errorf("GET %s while locked: %s\n%s", path, res.Status, body)
		}
		for _, leak := range []string{"n-live", "staging", "<nav>", r.path} {
			if strings.Contains(body, leak) {
				t.Errorf("GET %s while locked shows %q", path, leak)
			}
		}
	}
	res, body := r.do("GET", "/api/search?q=port", "", cookie)
	var ans struct {
		Locked bool   `json:"locked"`
		Error  string `json:"error"`
	}
	if res.StatusCode != http.StatusServiceUnavailable || json.Unmarshal([]byte(body), &ans) != nil || !ans.Locked {
		t.Errorf("API while locked: %s %s", res.Status, body)
	}
	if r.srv.pages.cached != [2]*cachedOverview{} {
		t.Error("the overview's counts and texts stay cached while the vault is locked")
	}
	r.openErr = nil
	if res, _ := r.do("GET", "/", "", cookie); res.StatusCode != http.StatusOK {
		t.Errorf("after unlocking: %s", res.Status)
	}
}

func TestSessionExpires(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	g := &guard{token: []byte("tok"), now: func() time.Time { return now }}
	session, ok := g.exchange("tok")
	if !ok {
		t.Fatal("exchange failed")
	}
	req := httptest.NewRequest("GET", "/", nil)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: session})
	if !g.valid(req) {
		t.Fatal("fresh session refused")
	}
	now = now.Add(cookieLife + time.Second)
	if g.valid(req) {
		t.Error("an expired session was accepted")
	}
}

func TestListenRefusesBadPorts(t *testing.T) {
	s, err := New(Options{Open: func() (Reader, error) { return nil, errors.New("unused") }})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{-1, 65536} {
		if _, err := s.Listen(p); err == nil {
			t.Errorf("port %d accepted", p)
		}
	}
}

func TestOverviewFollowsOtherWriters(t *testing.T) {
	r := newRig(t)
	cookie := r.login()
	if _, body := r.do("GET", "/", "", cookie); !strings.Contains(body, `id="n-live">3<`) {
		t.Fatal("overview before the write")
	}
	w, err := vault.Open(r.path, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: testPass}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Store(vault.StoreRequest{Text: "The lobby printer is called Wren", Source: "from chat"}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	_, body := r.do("GET", "/", "", cookie)
	if !strings.Contains(body, `id="n-live">4<`) || !strings.Contains(body, "The lobby printer is called Wren") {
		t.Errorf("the overview did not pick up another writer's memory:\n%s", body)
	}
}

func TestDashHonoursGrants(t *testing.T) {
	r := newRig(t)
	cfg, err := vault.LoadConfig(r.path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Grants = map[string]map[string]vault.Access{"other": {"*": vault.AccessRO, "home": vault.AccessNone}}
	if err := cfg.Save(r.path); err != nil {
		t.Fatal(err)
	}
	other, err := vault.Open(r.path, vault.Options{Unlock: vaultfmt.Unlock{Passphrase: testPass}, Caller: "other", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	r.reader = other // what the rig's server opens from now on
	cookie := r.login()
	_, body := r.do("GET", "/", "", cookie)
	for _, want := range []string{`id="n-live">2<`, "read 2 of the vault's 3 live memories", `id="n-relations">0<`} {
		if !strings.Contains(body, want) {
			t.Errorf("overview for a caller without home lacks %q", want)
		}
	}
	for path, code := range map[string]int{
		"/memory/" + r.ids["coffee"]: http.StatusNotFound,
		"/memory/" + r.ids["port"]:   http.StatusOK,
	} {
		if res, body := r.do("GET", path, "", cookie); res.StatusCode != code || strings.Contains(body, "coffee black") {
			t.Errorf("GET %s as other: %s", path, res.Status)
		}
	}
	for _, path := range []string{"/memories", "/search?q=coffee+black", "/api/search?q=coffee+black", "/graph", "/api/graph", "/tags", "/audit"} {
		if _, body := r.do("GET", path, "", cookie); strings.Contains(body, "Ana prefers") || strings.Contains(body, "knows") || strings.Contains(body, r.ids["coffee"][:12]) {
			t.Errorf("GET %s shows a memory from a namespace the caller may not read", path)
		}
	}
}
