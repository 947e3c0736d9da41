package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/compartment/compartment/internal/devsync"
	"github.com/compartment/compartment/internal/vault"
)

// statusOut is memory_status's answer. Vault and Settings are absent while
// the vault is locked.
type statusOut struct {
	Locked   bool          `json:"locked"`
	Path     string        `json:"path"`
	Caller   string        `json:"caller"`
	Hint     string        `json:"hint,omitempty"`
	Vault    *vault.Status `json:"vault,omitempty"`
	Settings *settingsOut  `json:"settings,omitempty"`
	Sync     *syncOut      `json:"sync,omitempty"`
	Server   serverOut     `json:"server"`
}

// syncOut is the vault's sync folder, when it has one (internal/devsync).
type syncOut struct {
	Folder    string          `json:"folder"`
	Device    string          `json:"device_id"`
	Devices   []syncDeviceOut `json:"devices"`
	LastMerge string          `json:"last_merge,omitempty"`
	Pending   int             `json:"pending"`
	Problem   string          `json:"problem,omitempty"`
}

type syncDeviceOut struct {
	Name       string `json:"name"`
	This       bool   `json:"this_device"`
	Operations uint64 `json:"operations"`
	LastOp     string `json:"last_operation,omitempty"`
}

// settingsOut are the settings that change what the tools do.
type settingsOut struct {
	MaxMemoryChars           int  `json:"max_memory_chars"`
	ExpireMemories           bool `json:"expire_memories"`
	IncludeReferenceInSearch bool `json:"include_reference_in_search"`
	IncludePacksInSearch     bool `json:"include_packs_in_search"`
	UnlockToolEnabled        bool `json:"unlock_tool_enabled"`
	AutoLockMinutes          int  `json:"auto_lock_minutes"`
}

type serverOut struct {
	Version       string `json:"version"`
	UptimeSeconds int64  `json:"uptime_seconds"`
	RSSBytes      int64  `json:"rss_bytes,omitempty"` // resident set size (Linux)
	HeapBytes     uint64 `json:"heap_bytes"`
	LastSweep     string `json:"last_expiry_sweep,omitempty"`
	Expired       int    `json:"expired_since_start"`
}

func (s *Server) statusTool() toolDef {
	count := func(d string) schema { return integer(d, 0, math.MaxInt32) }
	return toolDef{
		name: "memory_status", title: "Vault status", description: statusDesc,
		readOnly: true, idempotent: true, needsRead: true,
		in: inputObject(schema{}),
		out: outputObject(schema{
			"locked": boolean("true: every tool but memory_status and memory_lock refuses until the user unlocks"),
			"path":   str("the vault file"),
			"caller": str("the identity this server acts as"),
			"hint":   str("what to do, when locked"),
			"vault": outputObject(schema{
				"live":            count("memories in search"),
				"organic_records": count("live memories that are the user's own (not reference facts or packs)"),
				"superseded":      count(""),
				"relations":       count(""),
				"namespaces":      count(""),
				"audit_entries":   count(""),
				"audit_head":      str(""),

				"reference_records": count("live reference facts (the built-in pack in main)"),
				"pack_records":      count("live memories of installed packs (packs/*)"),
			}),
			"settings": outputObject(schema{
				"max_memory_chars":            count("0 = no limit"),
				"expire_memories":             boolean(""),
				"include_reference_in_search": boolean(""),
				"include_packs_in_search":     boolean(""),
				"unlock_tool_enabled":         boolean(""),
				"auto_lock_minutes":           count("0 = never"),
			}),
			"sync": outputObject(schema{
				"folder":     str("the sync folder this vault shares with other devices"),
				"device_id":  str("this device"),
				"last_merge": str("RFC 3339"),
				"pending":    count("memories other devices' operations name whose store has not arrived yet"),
				"problem":    str("why the last merge was refused or failed"),
				"devices": list("every device on the folder's signed list", outputObject(schema{
					"name": str(""), "this_device": boolean(""), "operations": count("operations in its log"),
					"last_operation": str("RFC 3339: when its newest operation was made"),
				})),
			}),
			"server": outputObject(schema{
				"version":             str(""),
				"uptime_seconds":      count(""),
				"rss_bytes":           number("resident memory of this server process"),
				"heap_bytes":          number(""),
				"last_expiry_sweep":   str("RFC 3339"),
				"expired_since_start": count("memories removed by expiry sweeps since the server started"),
			}, "version", "uptime_seconds", "heap_bytes", "expired_since_start"),
		}, "locked", "path", "caller", "server"),
		withoutVault: func(_ context.Context, raw json.RawMessage) (any, error) {
			if err := decode(raw, &struct{}{}); err != nil {
				return nil, err
			}
			return s.status()
		},
	}
}

func (s *Server) status() (statusOut, error) {
	out := statusOut{Locked: true, Path: s.opts.VaultPath, Caller: s.opts.Caller, Server: s.serverStats()}
	if s.keeper.Locked() {
		out.Hint = "ask the user to run `compartment unlock`"
		return out, nil
	}
	v, err := s.keeper.Vault()
	if errors.Is(err, vault.ErrLocked) {
		out.Hint = "ask the user to run `compartment unlock`"
		return out, nil
	}
	if err != nil {
		return out, err
	}
	st, err := v.Status()
	if err != nil {
		return out, err
	}
	cfg := v.Config().Settings
	out.Locked, out.Vault = false, &st
	out.Settings = &settingsOut{
		MaxMemoryChars: cfg.MaxMemoryChars, ExpireMemories: cfg.ExpireMemories,
		IncludeReferenceInSearch: cfg.IncludeReferenceInSearch, IncludePacksInSearch: cfg.IncludePacksInSearch,
		UnlockToolEnabled: cfg.UnlockToolEnabled, AutoLockMinutes: cfg.AutoLockMinutes,
	}
	out.Sync = syncStatus(v)
	return out, nil
}

// syncStatus reports the vault's sync folder, or nil when it has none.
func syncStatus(v *vault.Vault) *syncOut {
	sy := devsync.For(v)
	if sy == nil {
		return nil
	}
	st, err := sy.Status()
	out := &syncOut{Folder: st.Folder, Device: st.Device, Pending: st.LastMerge.Pending, Problem: st.LastMerge.Refused}
	if !st.LastMerge.At.IsZero() {
		out.LastMerge = st.LastMerge.At.Format(time.RFC3339)
	}
	if err != nil {
		out.Problem = err.Error()
	}
	for _, d := range st.Devices {
		o := syncDeviceOut{Name: d.Name, This: d.This, Operations: d.Operations}
		if !d.LastOp.IsZero() {
			o.LastOp = d.LastOp.Format(time.RFC3339)
		}
		out.Devices = append(out.Devices, o)
	}
	return out
}

func (s *Server) serverStats() serverOut {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s.mu.Lock()
	defer s.mu.Unlock()
	return serverOut{
		Version: s.opts.Version, UptimeSeconds: int64(time.Since(s.started).Seconds()),
		RSSBytes: residentBytes(), HeapBytes: ms.HeapAlloc, LastSweep: stamp(s.lastSweep), Expired: s.swept,
	}
}

// residentBytes reads VmRSS from /proc (0 where there is no /proc).
func residentBytes() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

func (s *Server) lockTool() toolDef {
	return toolDef{
		name: "memory_lock", title: "Lock the vault", description: lockDesc,
		idempotent: true, needsRead: true,
		in: inputObject(schema{}),
		out: outputObject(schema{
			"locked":   boolean("always true: the key is gone from this server"),
			"problems": strList("what failed while writing out, if anything"),
		}, "locked"),
		withoutVault: func(_ context.Context, raw json.RawMessage) (any, error) {
			if err := decode(raw, &struct{}{}); err != nil {
				return nil, err
			}
			out := lockOut{Locked: true}
			if err := s.keeper.Lock(); err != nil {
				out.Problems = []string{err.Error()}
				s.log.Warn("lock", "err", err)
			}
			s.log.Info("vault locked by memory_lock")
			return out, nil
		},
	}
}

func (s *Server) unlockTool() toolDef {
	return toolDef{
		name: "memory_unlock", title: "Unlock the vault", description: unlockDesc,
		idempotent: true,
		in: inputObject(schema{
			"passphrase": str("The vault passphrase, exactly as the user gave it."),
		}, "passphrase"),
		out: outputObject(schema{
			"locked": boolean("false once unlocked"),
		}, "locked"),
		withoutVault: func(_ context.Context, raw json.RawMessage) (any, error) {
			var a struct {
				Passphrase string `json:"passphrase"`
			}
			if err := decode(raw, &a); err != nil {
				return nil, err
			}
			return s.unlock([]byte(a.Passphrase))
		},
	}
}

// errUnlockToolOff explains why memory_unlock refused.
var errUnlockToolOff = errors.New("memory_unlock is turned off: a passphrase sent through a tool call is visible to the model host. Ask the user to run `compartment unlock` on this machine. (The user can turn this tool on with `compartment config set unlock_tool_enabled true`.)")

func (s *Server) unlock(pass []byte) (unlockOut, error) {
	// The settings file is read fresh: it is plaintext beside the vault and
	// the vault may not be open, and the user may have just changed it.
	cfg, err := vault.LoadConfig(s.opts.VaultPath)
	if err != nil {
		return unlockOut{}, err
	}
	if !cfg.Settings.UnlockToolEnabled {
		return unlockOut{}, errUnlockToolOff
	}
	if len(pass) == 0 {
		return unlockOut{}, fmt.Errorf("%w: passphrase is empty", vault.ErrInvalid)
	}
	var keyfile []byte
	if s.opts.Keyfile != nil {
		if keyfile, err = s.opts.Keyfile(); err != nil {
			return unlockOut{}, err
		}
	}
	if err := s.keeper.Unlock(pass, keyfile); err != nil {
		s.log.Warn("memory_unlock failed", "err", err)
		return unlockOut{}, err
	}
	s.log.Info("vault unlocked by memory_unlock")
	s.importPending() // memory files the hook saw while locked (pending.go)
	return unlockOut{Locked: false}, nil
}
