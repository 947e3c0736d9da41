package dash

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

//go:embed assets
var assets embed.FS

// pageNames are the templates under assets/templates besides the layout,
// one per page.
var pageNames = []string{"overview", "search", "list", "memory", "graph", "tags", "audit", "locked", "problem"}

// Limits on what one page lists.
const (
	maxListed     = 500
	maxGraphEdges = 2000
	maxAuditShown = 200
	maxChain      = 32
	allRelations  = math.MaxInt32
)

// pages renders the dashboard's pages and answers its JSON API.
type pages struct {
	s    *Server
	mux  *http.ServeMux
	tmpl map[string]*template.Template

	mu     sync.Mutex
	cached [2]*cachedOverview // the user's own, and all (by scopeIndex)
}

// cachedOverview is the last overview computed, good while the vault's
// version and the day (for "stored today") stay the same.
type cachedOverview struct {
	reader  Reader
	version uint64
	day     string
	o       overview
}

// scopeIndex is where the overview of a scope is cached.
func scopeIndex(all bool) int {
	if all {
		return 1
	}
	return 0
}

// view is what every template receives.
type view struct {
	Title, Page       string
	VaultPath, Caller string
	Data              any
}

func newPages(s *Server) (*pages, error) {
	p := &pages{s: s, mux: http.NewServeMux(), tmpl: map[string]*template.Template{}}
	funcs := template.FuncMap{
		"day":      localDay,
		"datetime": func(t time.Time) string { return t.In(time.Local).Format("2006-01-02 15:04") },
		"short":    shortID,
		"f3":       func(f float64) string { return fmt.Sprintf("%.3f", f) },
		"f1":       func(f float64) string { return fmt.Sprintf("%.1f", f) },
		"join":     strings.Join,
	}
	layout, err := template.New("layout").Funcs(funcs).ParseFS(assets, "assets/templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("dash: templates: %w", err)
	}
	for _, name := range pageNames {
		t, err := template.Must(layout.Clone()).ParseFS(assets, "assets/templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("dash: template %s: %w", name, err)
		}
		p.tmpl[name] = t
	}
	static, err := fs.Sub(assets, "assets/static")
	if err != nil {
		return nil, fmt.Errorf("dash: assets: %w", err)
	}
	p.mux.HandleFunc("GET /static/{name}", func(w http.ResponseWriter, r *http.Request) {
		// Files only: no directory listing, no index pages.
		name := r.PathValue("name")
		if fi, err := fs.Stat(static, name); err != nil || !fi.Mode().IsRegular() {
			http.NotFound(w, r)
			return
		}
		http.ServeFileFS(w, r, static, name)
	})
	p.mux.HandleFunc("GET /{$}", p.page("overview", "overview", p.overview))
	p.mux.HandleFunc("GET /search", p.page("search", "search", p.search))
	p.mux.HandleFunc("GET /memories", p.page("list", "memories", list))
	p.mux.HandleFunc("GET /memory/{id}", p.page("memory", "memory", memory))
	p.mux.HandleFunc("GET /graph", p.page("graph", "graph", graphPage))
	p.mux.HandleFunc("GET /tags", p.page("tags", "tags", tags))
	p.mux.HandleFunc("GET /audit", p.page("audit", "audit", audit))
	p.mux.HandleFunc("GET /api/search", p.api(apiSearch))
	p.mux.HandleFunc("GET /api/graph", p.api(loadGraph))
	return p, nil
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// render writes a page; a template failure is a 500 with a plain message
// (the buffer keeps a half-written page from reaching the browser).
func (p *pages) render(w http.ResponseWriter, code int, name, title string, data any) {
	var buf bytes.Buffer
	v := view{Title: title, Page: name, VaultPath: p.s.opts.VaultPath, Caller: p.s.opts.Caller, Data: data}
	if err := p.tmpl[name].ExecuteTemplate(&buf, "layout", v); err != nil {
		plain(w, http.StatusInternalServerError, "dash: render "+name+": "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

// fail shows an error as a page: locked, a bad parameter, not found, or
// whatever the vault said.
func (p *pages) fail(w http.ResponseWriter, err error) {
	code, msg := classify(err)
	if code == http.StatusServiceUnavailable {
		p.render(w, code, "locked", "locked", nil)
		return
	}
	p.render(w, code, "problem", http.StatusText(code), msg)
}

// classify maps an error to a status and one sentence for a person.
func classify(err error) (int, string) {
	switch {
	case errors.Is(err, vault.ErrLocked):
		return http.StatusServiceUnavailable, "The vault is locked: run `compartment unlock` in a terminal, then reload this page."
	case errors.Is(err, errParam), errors.Is(err, vault.ErrInvalid):
		return http.StatusBadRequest, err.Error()
	case errors.Is(err, vault.ErrNotFound), errors.Is(err, vault.ErrAmbiguous):
		return http.StatusNotFound, err.Error()
	}
	return http.StatusInternalServerError, err.Error()
}

// reader reads what one page or API answer shows, from the open vault.
type reader func(v Reader, r *http.Request) (any, error)

// page serves an HTML page: open the vault, read, render; any failure
// (locked, a bad parameter, not found) becomes its own page.
func (p *pages) page(name, title string, read reader) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		data, err := p.read(r, read)
		if err != nil {
			p.fail(w, err)
			return
		}
		p.render(w, http.StatusOK, name, title, data)
	}
}

// api serves a JSON answer the same way.
func (p *pages) api(read reader) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		data, err := p.read(r, read)
		if err != nil {
			p.jsonFail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, data)
	}
}

func (p *pages) read(r *http.Request, read reader) (any, error) {
	v, err := p.s.opts.Open()
	if err != nil {
		// Locked (or gone): keep no counts or texts of it either.
		p.mu.Lock()
		p.cached = [2]*cachedOverview{}
		p.mu.Unlock()
		return nil, err
	}
	return read(v, r)
}

func (p *pages) overview(v Reader, r *http.Request) (any, error) {
	return p.currentOverview(v, flag(r.URL.Query(), "all"))
}

// currentOverview returns the overview, computing it again only when the
// vault changed (here or in another process), was reopened, or the day
// turned. Counting 20k memories is the costly part of the first page.
func (p *pages) currentOverview(v Reader, all bool) (overview, error) {
	version, err := v.Version()
	if err != nil {
		return overview{}, err
	}
	now := p.s.opts.Now()
	day := localDay(now)
	p.mu.Lock()
	c := p.cached[scopeIndex(all)]
	p.mu.Unlock()
	if c != nil && c.reader == v && c.version == version && c.day == day {
		return c.o, nil
	}
	o, err := loadOverview(v, now, all)
	if err != nil {
		return overview{}, err
	}
	p.mu.Lock()
	p.cached[scopeIndex(all)] = &cachedOverview{reader: v, version: version, day: day, o: o}
	p.mu.Unlock()
	return o, nil
}

// loadOverview reads what the overview counts.
func loadOverview(v Reader, now time.Time, all bool) (overview, error) {
	st, err := v.Status()
	if err != nil {
		return overview{}, err
	}
	recs, err := v.Records()
	if err != nil {
		return overview{}, err
	}
	rels, err := v.Relations(vault.RelationQuery{Limit: allRelations})
	if err != nil {
		return overview{}, err
	}
	return summarize(recs, st, len(rels.Relations), now, all), nil
}

// searchView is the search page: the form as given, and results when a
// query was given (the script then keeps them live).
type searchView struct {
	Params     searchParams
	Namespaces []count
	Searched   bool
	Hits       []vault.SearchHit
	Took       string
}

func (p *pages) search(v Reader, r *http.Request) (any, error) {
	params, hits, took, err := runSearch(v, r)
	if err != nil {
		return nil, err
	}
	sv := searchView{Params: params, Hits: hits, Searched: params.Query != "", Took: took.Round(10 * time.Microsecond).String()}
	if o, err := p.currentOverview(v, true); err == nil {
		sv.Namespaces = o.Namespaces
	}
	return sv, nil
}

// searchAnswer is /api/search's body.
type searchAnswer struct {
	Results []vault.SearchHit `json:"results"`
	TookMS  float64           `json:"took_ms"`
	Notice  string            `json:"notice"`
}

func apiSearch(v Reader, r *http.Request) (any, error) {
	_, hits, took, err := runSearch(v, r)
	if err != nil {
		return nil, err
	}
	if hits == nil {
		hits = []vault.SearchHit{}
	}
	return searchAnswer{Results: hits, TookMS: float64(took.Microseconds()) / 1000, Notice: vault.DataNotice}, nil
}

// runSearch runs the request's query with its explanation (nothing when q
// is empty), timing the vault's search alone: what `compartment search`
// runs.
func runSearch(v Reader, r *http.Request) (searchParams, []vault.SearchHit, time.Duration, error) {
	params, err := parseSearch(r.URL.Query())
	if err != nil || params.Query == "" {
		return params, nil, 0, err
	}
	start := time.Now()
	hits, err := v.Search(params.request())
	return params, hits, time.Since(start), err
}

// listView is the list page.
type listView struct {
	Filter      listFilter
	Description string
	Records     []*vault.Record
	Total       int
}

func list(v Reader, r *http.Request) (any, error) {
	f, err := parseList(r.URL.Query())
	if err != nil {
		return nil, err
	}
	recs, err := v.Records()
	if err != nil {
		return nil, err
	}
	lv := listView{Filter: f, Description: f.describe()}
	for i := len(recs) - 1; i >= 0; i-- {
		if f.match(recs[i]) {
			lv.Total++
			if len(lv.Records) < maxListed {
				lv.Records = append(lv.Records, recs[i])
			}
		}
	}
	return lv, nil
}

// memoryView is one memory's page.
type memoryView struct {
	Record    *vault.Record
	Older     []chainLink // what it superseded, nearest first
	Newer     []chainLink // what superseded it, nearest first
	Relations []*vault.Relation
	Audit     []vault.AuditEntry
}

// chainLink is one step of a supersede chain; Record is nil when that
// memory is gone (forgotten) or not readable by this caller.
type chainLink struct {
	ID     string
	Record *vault.Record
}

func memory(v Reader, r *http.Request) (any, error) {
	id, ok := parseID(r.PathValue("id"))
	if !ok {
		return nil, fmt.Errorf("%q is not a memory id: %w", r.PathValue("id"), vault.ErrNotFound)
	}
	rec, err := v.Get(id)
	if err != nil {
		return nil, err
	}
	mv := memoryView{Record: rec}
	mv.Older, mv.Newer = supersedeChain(v, rec)
	rels, err := v.Relations(vault.RelationQuery{Limit: allRelations})
	if err != nil {
		return nil, err
	}
	for _, rel := range rels.Relations {
		if rel.Src == rec.ID {
			mv.Relations = append(mv.Relations, rel)
		}
	}
	if mv.Audit, err = v.AuditLog(rec.ID, maxAuditShown); err != nil {
		return nil, err
	}
	return mv, nil
}

// supersedeChain walks from rec to what it replaced (breadth first) and to
// what replaced it, each at most maxChain steps, never visiting a memory
// twice.
func supersedeChain(v Reader, rec *vault.Record) (older, newer []chainLink) {
	seen := map[string]bool{rec.ID: true}
	step := func(id string) (chainLink, bool) {
		if seen[id] {
			return chainLink{}, false
		}
		seen[id] = true
		link := chainLink{ID: id}
		if r, err := v.Get(id); err == nil {
			link.Record = r
		}
		return link, true
	}
	queue := append([]string(nil), rec.Supersedes...)
	for len(queue) > 0 && len(older) < maxChain {
		link, ok := step(queue[0])
		queue = queue[1:]
		if !ok {
			continue
		}
		older = append(older, link)
		if link.Record != nil {
			queue = append(queue, link.Record.Supersedes...)
		}
	}
	for next := rec.SupersededBy; next != "" && len(newer) < maxChain; {
		link, ok := step(next)
		if !ok {
			break
		}
		newer = append(newer, link)
		next = ""
		if link.Record != nil {
			next = link.Record.SupersededBy
		}
	}
	return older, newer
}

// graphPage is the relations as a table (the script draws them as a graph
// from /api/graph, the same data).
func graphPage(v Reader, r *http.Request) (any, error) { return loadGraph(v, r) }

// loadGraph reads the relations valid on ?as_of= (all of them without it).
func loadGraph(v Reader, r *http.Request) (any, error) {
	asOf, err := date(r.URL.Query(), "as_of")
	if err != nil {
		return nil, err
	}
	res, err := v.Relations(vault.RelationQuery{AsOf: asOf, Limit: maxGraphEdges})
	if err != nil {
		return nil, err
	}
	return buildGraph(res, asOf), nil
}

// tagsView is the tags page: the counts, and whether reference facts and
// packs are counted too.
type tagsView struct {
	All  bool
	Tags []count
}

func tags(v Reader, r *http.Request) (any, error) {
	recs, err := v.Records()
	if err != nil {
		return nil, err
	}
	all := flag(r.URL.Query(), "all")
	return tagsView{All: all, Tags: tagCounts(recs, all)}, nil
}

// auditView is the audit page: the chain's state and its newest entries.
type auditView struct {
	Report  vault.AuditReport
	Entries []vault.AuditEntry
}

func audit(v Reader, _ *http.Request) (any, error) {
	rep, err := v.AuditVerify()
	if err != nil {
		return nil, err
	}
	entries, err := v.AuditLog("", maxAuditShown)
	if err != nil {
		return nil, err
	}
	return auditView{Report: rep, Entries: entries}, nil
}

// jsonFail answers an API call with {"error": ..., "locked": ...}.
func (p *pages) jsonFail(w http.ResponseWriter, err error) {
	code, msg := classify(err)
	writeJSON(w, code, map[string]any{"error": msg, "locked": code == http.StatusServiceUnavailable})
}

// writeJSON writes v as JSON (with <, > and & escaped, as encoding/json
// does by default, so a memory's text cannot close a script context).
func writeJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		plain(w, http.StatusInternalServerError, "dash: encode: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	w.Write(body)
}
