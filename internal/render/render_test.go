package render

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/embed"
	"github.com/compartment/compartment/fts"
	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/capture"
	"github.com/compartment/compartment/internal/devsync"
	"github.com/compartment/compartment/internal/integrate"
	"github.com/compartment/compartment/internal/search"
	"github.com/compartment/compartment/internal/session"
	"github.com/compartment/compartment/internal/vault"
)

// text runs one renderer on a fresh buffer and returns what it wrote.
func text(f func(w *bytes.Buffer)) string {
	var b bytes.Buffer
	f(&b)
	return b.String()
}

func same(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

var created = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func record() *vault.Record {
	return &vault.Record{ID: "0123456789abcdef0123", Text: "Priya prefers reviews before noon", Source: "from chat",
		Discovered: "2026-03-04", Created: created, Namespace: "work", Tags: []string{"people", "reviews"},
		TagsOrigin: []string{"people"}, Importance: 0.8, Kind: "opinion", Supersedes: []string{"aa", "bb"}, Caller: "user"}
}

// TestRecord: one field a line, empty ones left out, inferred tags
// marked, the text stamped with its provenance, a hostile value escaped.
func TestRecord(t *testing.T) {
	r := record()
	same(t, "record", text(func(w *bytes.Buffer) { Record(w, r) }), ""+
		"id            0123456789abcdef0123\n"+
		"text          Priya prefers reviews before noon [from chat, 2026-03-04]\n"+
		"source        from chat\n"+
		"discovered    2026-03-04\n"+
		"created       2026-03-04 05:06:07Z\n"+
		"namespace     work\n"+
		"tags          people, reviews (inferred)\n"+
		"importance    0.80\n"+
		"kind          opinion\n"+
		"supersedes    aa, bb\n"+
		"caller        user\n")
	r.Namespace, r.Quarantined = "work\x1b[2J", true
	got := text(func(w *bytes.Buffer) { Record(w, r) })
	if !strings.Contains(got, "namespace     work\\x1b[2J\n") || !strings.Contains(got, "quarantined   yes: the content came from an untrusted source\n") {
		t.Errorf("hostile namespace, quarantined: %q", got)
	}
}

// TestStoreResult: the id on stdout and the rest on stderr; a conflict
// prints no id and names each live opinion.
func TestStoreResult(t *testing.T) {
	var out, errw bytes.Buffer
	StoreResult(&out, &errw, vault.StoreResult{Stored: true, ID: "id1", Superseded: []string{"a", "b"}})
	same(t, "stored", out.String()+"|"+errw.String(), "id1\n|superseded: a, b\n")
	out.Reset()
	errw.Reset()
	StoreResult(&out, &errw, vault.StoreResult{Duplicate: true, ID: "id2"})
	same(t, "duplicate", out.String()+"|"+errw.String(), "id2\n|a near-identical memory already exists: its id is above, nothing new was stored\n")
	out.Reset()
	errw.Reset()
	StoreResult(&out, &errw, vault.StoreResult{Conflicts: []*vault.Record{record()}})
	same(t, "conflict", out.String()+"|"+errw.String(), "|not stored: live opinions of the same holder on the same aspect exist:\n"+
		"  0123456789abcdef0123  Priya prefers reviews before noon [from chat, 2026-03-04]  (namespace work)\n"+
		"resend with --supersedes ID to replace one, or --keep-both to keep all\n")
}

// TestSearch: the as-of line, one line a hit with its notes, explain's
// lines, and nothing found said on stderr only.
func TestSearch(t *testing.T) {
	res := vault.SearchResult{AsOf: "2025-03-31", AsOfPhrase: "in March 2025", Hits: []vault.SearchHit{{
		ID: "abcdefabcdef0000", Text: "The API runs on port 5433 [from chat, 2025-03-02]", Score: 1.2345, Match: "strong",
		ValidThen: "valid then; replaced on 2025-04-02", UpdatedBy: "fedcbafedcba1111", Confidence: 0.91,
		Explain: &vault.Explanation{Explanation: &search.Explanation{Cosine: 0.8, PVec: 0.9, RankVec: 1, Mode: "AND",
			Terms: []fts.TermMatch{{Term: "port", Info: 2.5}}, PLex: 0.7, RankLex: 2, Rare: true}, Unaged: 1.5},
	}}}
	var out, errw bytes.Buffer
	Search(&out, &errw, res, true)
	lines := strings.Split(out.String(), "\n")
	same(t, "as of", lines[0], `as of 2025-03-31 (read from "in March 2025"): memories valid then first`)
	same(t, "hit", lines[1], "strong  1.234  abcdefabcdef  The API runs on port 5433 [from chat, 2025-03-02]")
	same(t, "valid then", lines[2], "        valid then; replaced on 2025-04-02")
	same(t, "updated by", lines[3], "       not current: updated by fedcbafedcba")
	if !strings.HasPrefix(lines[5], "       literal:  AND match, terms port (I=2.50) -> p_lex 0.700, rank 2") ||
		!strings.HasSuffix(lines[7], ", holds a rare query word") || errw.Len() != 0 {
		t.Errorf("explain lines: %q (stderr %q)", lines[4:], errw.String())
	}
	// The current opinion says what it replaces, and how to see those
	// when the answer left them out.
	current := vault.SearchHit{ID: "0123456789ab0000", Text: "Lena prefers Helix", Match: "strong", Replaces: []string{"fedcbafedcba1111"}}
	older := vault.SearchHit{ID: "fedcbafedcba1111", Text: "Lena prefers Zed", Match: "strong", UpdatedBy: current.ID}
	same(t, "current", text(func(w *bytes.Buffer) { Search(w, &errw, vault.SearchResult{Hits: []vault.SearchHit{current}}, false) }),
		"strong  0.000  0123456789ab  Lena prefers Helix\n       current: replaces fedcbafedcba (--history shows them)\n")
	same(t, "current with history", text(func(w *bytes.Buffer) {
		Search(w, &errw, vault.SearchResult{Hits: []vault.SearchHit{current, older}}, false)
	}), "strong  0.000  0123456789ab  Lena prefers Helix\n       current: replaces fedcbafedcba\n"+
		"strong  0.000  fedcbafedcba  Lena prefers Zed\n       not current: updated by 0123456789ab\n")
	out.Reset()
	Search(&out, &errw, vault.SearchResult{}, false)
	same(t, "nothing found", out.String()+"|"+errw.String(), "|nothing shares a word or a meaning with the query\n")
}

// TestLists: recent, namespaces, relations (with their windows), the
// audit report, settings by name.
func TestLists(t *testing.T) {
	r := record()
	r.Quarantined = true
	same(t, "recent", text(func(w *bytes.Buffer) { Recent(w, []*vault.Record{r}) }),
		"0123456789ab  2026-03-04 05:06  work         Priya prefers reviews before noon [from chat, 2026-03-04]  (QUARANTINED: from an untrusted source)\n")
	same(t, "namespaces", text(func(w *bytes.Buffer) {
		Namespaces(w, []vault.NamespaceInfo{{Name: "work", Records: 3, Superseded: 1, Access: vault.AccessRW}})
	}), "NAMESPACE                    LIVE  SUPERSEDED  ACCESS\nwork                            3           1  rw\n")
	same(t, "relations", text(func(w *bytes.Buffer) {
		Relations(w, []*vault.Relation{{ID: "r1", Subject: "Max", Predicate: "works_at", Object: "Northwind", From: "2024-01-01"}, {ID: "r2", Subject: "a", Predicate: "b", Object: "c"}})
	}), "r1  Max works_at Northwind  [2024-01-01 to …]\nr2  a b c\n")
	same(t, "audit", text(func(w *bytes.Buffer) {
		Audit(w, vault.AuditReport{Entries: 7, Head: "0123456789abcdef0123", Breaks: []vault.AuditBreak{{Seq: 3, Reason: "hash mismatch"}}, Unaudited: []string{"id9"}})
	}), "entries        7, head 0123456789abcdef\nbreak          entry 3: hash mismatch\nunaudited      id9: no audit entry names it (written around the chain)\n")
	same(t, "settings", text(func(w *bytes.Buffer) { Settings(w, map[string]any{"b_key": 2, "a_key": true}) }),
		"a_key                        true\nb_key                        2\n")
}

// TestVaultState: status open and locked, the lock's report, unlock's
// sentence for each case, two-factor status.
func TestVaultState(t *testing.T) {
	st := vault.Status{Path: "/v/memory.vault", FormatVersion: 3, VaultID: "0123456789abcdef", Created: created, Live: 5,
		Slots: []vault.SlotStatus{{Kind: "passphrase", Time: 3, MemoryKiB: 65536, Threads: 4}}, FileBytes: 3 << 20, JournalBytes: 2048}
	got := text(func(w *bytes.Buffer) { Status(w, st) })
	for _, want := range []string{"vault          /v/memory.vault (unlocked)\n", "format         version 3, id 0123456789ab, created 2026-03-04\n",
		"model          none (literal search only)\n", "key slots      passphrase (argon2id t=3 m=64MiB p=4)\n",
		"file           3.0 MiB: 0 items compacted, journal 0 frames (2.0 KiB)\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("status lacks %q:\n%s", want, got)
		}
	}
	same(t, "locked status", text(func(w *bytes.Buffer) { LockedStatus(w, api.LockedStatus("/v/m", 512, true)) }),
		"vault          /v/m (locked)\nfile           512 B\ntwo-factor     on: unlocking needs the passphrase and the keyfile\n"+
			"unlock         `compartment unlock` opens it for every command and agent of yours until reboot or `compartment lock`\n")
	same(t, "lock", text(func(w *bytes.Buffer) {
		Locked(w, api.Locked{Flushed: true, Locked: true, Signed: true, Signer: "ab:cd"})
	}),
		"vault flushed and compacted\nsigned with identity key ab:cd\n"+
			"locked: every process of yours drops the key before its next call; `compartment unlock` opens it again\n")
	unlock := func(res session.Unlocked, once bool) string {
		return text(func(w *bytes.Buffer) { Unlocked(w, res, once) })
	}
	same(t, "already", unlock(session.Unlocked{Already: true, State: session.State{AutoLock: 15 * time.Minute}}, false),
		"already unlocked; auto-locks after 15m0s without use\n")
	same(t, "already, once", unlock(session.Unlocked{Already: true}, true),
		"already unlocked for every process; run `compartment lock` first to let only one in\n")
	if got := unlock(session.Unlocked{}, false); !strings.HasSuffix(got, "it never auto-locks (auto_lock_minutes = 0)\n") {
		t.Errorf("unlocked, no auto-lock: %q", got)
	}
	same(t, "2fa off", text(func(w *bytes.Buffer) { TwoFactorStatus(w, session.TwoFactor{}) }),
		"two-factor unlock  off (turn it on with `compartment 2fa enable`)\n")
	same(t, "2fa missing", text(func(w *bytes.Buffer) { TwoFactorStatus(w, session.TwoFactor{Enabled: true, Keyfile: "/usb/k"}) }),
		"two-factor unlock  on: passphrase and keyfile\nkeyfile            /usb/k (MISSING: attach the media that holds it)\n")
	var out, errw bytes.Buffer
	TwoFactorEnabled(&out, &errw, session.TwoFactor{Keyfile: "/v/k"}, true)
	if !strings.HasPrefix(errw.String(), "warning: the keyfile is in the vault's directory") || strings.Contains(out.String(), "warning") {
		t.Errorf("keyfile beside the vault: out %q, err %q", out.String(), errw.String())
	}
	same(t, "init, locked", text(func(w *bytes.Buffer) { UnlockedAfterInit(w, errors.New("no session")) }),
		"The vault is locked (no session): run `compartment unlock` before storing.\n")
}

// TestTransfers: import's report with its skips, packs, the reference
// line.
func TestTransfers(t *testing.T) {
	rep := api.Import{ImportResult: vault.ImportResult{Stored: 4, Relations: 1, Lines: 9, Present: 2, Packs: 1}, Seconds: 1.25, LinesPerS: 7.2}
	same(t, "import", text(func(w *bytes.Buffer) { Import(w, rep) }),
		"imported 4 memories and 1 relations from 9 lines in 1.2 s (7 lines/s)\n"+
			"  skipped 2 already in the vault (same id, claim or relation)\n"+
			"  skipped 1 pack records: packs are installed whole and signed, with `compartment pack install`\n")
	same(t, "no packs", text(func(w *bytes.Buffer) { Packs(w, nil) }), "no packs installed\n")
	same(t, "packs", text(func(w *bytes.Buffer) {
		Packs(w, []vault.PackInfo{{Name: "ops", Version: "1.0", Memories: 12, Author: "ab:cd"}})
	}), "ops                  1.0              12 memories  signed by ab:cd\n")
	same(t, "reference", text(func(w *bytes.Buffer) {
		Reference(w, api.Reference{Reference: vault.BulkResult{Added: 3}, Seconds: 0.25, Version: "0123456789abcdef"})
	}), "Reference facts: 3 added, 0 removed, 0 unchanged (pack 0123456789ab, 0.2s)\n")
}

// TestSync: a merge's report and the status table.
func TestSync(t *testing.T) {
	same(t, "report", text(func(w *bytes.Buffer) {
		SyncReport(w, devsync.Report{Written: 2, Deleted: 1, Copying: []string{"log-b"}, Ignored: []string{"stray\x1b"}})
	}), "merged: 2 written, 1 removed (0 shredded), 0 operations logged, 0 waiting for their memory to arrive\n"+
		"still copying: log-b (read up to its last whole operation)\nignored: stray\\x1b\n")
	st := devsync.Status{Folder: "/sync", Device: "aabb", DeviceName: "laptop", Devices: []devsync.DeviceStatus{
		{ID: "aabbccddeeff", Name: "laptop", This: true, Operations: 4},
		{ID: "112233445566", Name: "desk", NoLog: true, Left: created}}}
	got := text(func(w *bytes.Buffer) { SyncStatus(w, st) })
	for _, want := range []string{"this       laptop (aabb)\n",
		"device     laptop           aabbccdd  4 operations, no operation yet [this device]\n",
		"device     desk             11223344  0 operations, its log has not arrived [left 2026-03-04]\n",
		"pending    0 memories named by operations whose store has not arrived; 0 logs still copying\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("sync status lacks %q:\n%s", want, got)
		}
	}
}

// TestIntegrate: a change in one line (dry runs say "would be"), a
// connection with its steps, the client table, the hook's status.
func TestIntegrate(t *testing.T) {
	ch := integrate.Change{Path: "/h/.claude.json", Action: "updated", Backup: "/h/.claude.json.bak"}
	same(t, "describe", Describe("Claude Code: MCP server", ch, false), "Claude Code: MCP server updated (/h/.claude.json); backup /h/.claude.json.bak")
	same(t, "dry", Describe("x", integrate.Change{Path: "/p", Action: "created"}, true), "x would be created (/p)")
	same(t, "unchanged, dry", Describe("x", integrate.Change{Path: "/p", Action: "unchanged"}, true), "x already in place, nothing changed (/p)")
	conn := integrate.Connection{Action: "created", MCP: integrate.Change{Path: "/c", Action: "created", Message: "restart it"},
		Steps: []integrate.Step{{What: "skill", Change: integrate.Change{Path: "/s", Action: "created"}, Note: "try /compartmentalize"}}}
	same(t, "connection", text(func(w *bytes.Buffer) { Connection(w, "Hermes Agent", conn, nil, false) }),
		"Hermes Agent: MCP server created (/c)\n  restart it\nskill created (/s)\n  try /compartmentalize\n")
	same(t, "paste", text(func(w *bytes.Buffer) {
		Connection(w, "Zed", integrate.Connection{Action: "paste", Block: "{...}"}, nil, false)
	}), "Zed keeps its servers where compartment cannot edit them. Add this block:\n\n{...}\n")
	same(t, "failed", text(func(w *bytes.Buffer) {
		Connection(w, "Zed", integrate.Connection{WireFailed: true, Block: "{...}"}, errors.New("read-only"), false)
	}), "Zed: read-only\nPaste this into it by hand:\n\n{...}\n")
	same(t, "clients", text(func(w *bytes.Buffer) {
		Clients(w, []integrate.ClientRow{{Client: "claude-code", Name: "Claude Code", Installed: true, File: "/h/.claude.json"}, {Client: "x", Name: "X"}})
	}), "CLIENT          NAME                   INSTALLED WIRED  FILE\n"+
		"claude-code     Claude Code            yes       -      /h/.claude.json\n"+
		"x               X                      -         -      (no file: integrate prints the block to paste)\n")
	same(t, "hook off", text(func(w *bytes.Buffer) { HookStatus(w, capture.HookState{Settings: "/h/settings.json"}) }),
		"capture hook: not installed in /h/settings.json (`compartment hook install`)\n")
	same(t, "hook on", text(func(w *bytes.Buffer) {
		HookStatus(w, capture.HookState{Installed: true, Settings: "/s", Commands: []string{"compartment hook capture"}, VaultUnlocked: true})
	}), "capture hook: installed in /s\n  runs: compartment hook capture\nvault: unlocked, so memory files Claude Code writes are stored\n")
}

// TestTools: the embedding daemon's status, sizes, the progress bar's
// two forms.
func TestTools(t *testing.T) {
	same(t, "daemon down", text(func(w *bytes.Buffer) { Daemon(w, embed.DaemonStatus{Socket: "/run/s"}) }), "not running (socket /run/s)\n")
	for n, want := range map[int64]string{512: "512 B", 2048: "2.0 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB"} {
		same(t, "bytes", Bytes(n), want)
	}
	p := &Progress{label: "importing", total: 200}
	same(t, "bar", p.line(50, time.Second), "\rimporting [#######.......................]  25% 50/200  50/s, 3s left\x1b[K")
	same(t, "bar at the start", p.line(0, 0), "\rimporting [..............................]   0% 0/200\x1b[K")
	same(t, "bar at the end", p.line(200, 100*time.Second), "\rimporting [##############################] 100% 200/200  2/s\x1b[K")
	same(t, "eta in hours", RateETA(100, 1000000, 10*time.Second), "  10/s, 27h46m left")
	same(t, "eta in minutes", RateETA(100000, 1000000, 40*time.Second), "  2500/s, 6m00s left")
	p.total = 0
	same(t, "count", p.line(50, 2*time.Second), "\rimporting 50 (25/s)\x1b[K")
	var b bytes.Buffer
	q := NewProgress(&b, "x", 10) // not a terminal: draws nothing
	q.Set(5)
	q.Stage("y", 10, 10)
	if b.Len() != 0 {
		t.Errorf("a bar on a pipe drew %q", b.String())
	}
}

// TestWhereToGetRelease names the platform's archive and the binary it
// replaces.
func TestWhereToGetRelease(t *testing.T) {
	got := text(func(w *bytes.Buffer) { WhereToGetRelease(w, "linux", "arm64", "/usr/local/bin/compartment") })
	for _, want := range []string{"get a release for linux/arm64 (compartment_<version>_linux_arm64.tar.gz, with SHA256SUMS\n",
		"    compartment update --from FILE\n", "replaces /usr/local/bin/compartment in place.\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
}

// TestOnOpen: what every open says on stderr about its sync merge and its
// expiry sweep, and that it says nothing when nothing happened.
func TestOnOpen(t *testing.T) {
	same(t, "quiet", text(func(w *bytes.Buffer) { SyncAttached(w, devsync.Report{}, nil); Swept(w, 0, nil) }), "")
	same(t, "merged", text(func(w *bytes.Buffer) { SyncAttached(w, devsync.Report{Written: 3, Deleted: 1}, nil) }),
		"compartment: sync: merged 3 memories and relations from other devices, removed 1\n")
	same(t, "merge failed", text(func(w *bytes.Buffer) { SyncAttached(w, devsync.Report{Written: 3}, errors.New("folder\x1b gone")) }),
		"compartment: sync: folder\\x1b gone\n")
	same(t, "swept", text(func(w *bytes.Buffer) { Swept(w, 2, nil) }), "compartment: removed 2 expired memories\n")
	same(t, "left", text(func(w *bytes.Buffer) { SyncLeft(w, "/sync") }),
		"this vault no longer syncs with /sync; it keeps every memory, and the other devices keep what it wrote\n")
}
