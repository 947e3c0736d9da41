package capture

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/compartment/compartment/internal/integrate"
	"github.com/compartment/compartment/internal/shape"
	"github.com/compartment/compartment/internal/vault"
	"github.com/compartment/compartment/vaultfmt"
)

// HookReport is what one run of the capture hook did (the JSON of `hook
// capture --json`).
type HookReport struct {
	Stored     int    `json:"stored"`
	Duplicates int    `json:"duplicates"`
	Pending    bool   `json:"pending,omitempty"` // locked: the file or turn waits for the next unlock
	Skipped    string `json:"skipped,omitempty"`
}

// Hook is one run of the capture hook: a Claude Code hook event or a
// conversation turn on In, stored into the vault at Vault.
type Hook struct {
	In    io.Reader
	Vault string
	Env   integrate.Env
	// Caller stores what the input holds. CallerSet false means the user
	// named none: a memory file is then stored as [DefaultCaller], as the
	// installed hook says (a turn's host names itself).
	Caller    string
	CallerSet bool
	// Credential is the key at hand without asking anyone; false while
	// the vault is locked.
	Credential func() (vaultfmt.Unlock, bool)
	// Open opens the vault with u as caller.
	Open func(u vaultfmt.Unlock, caller string) (*vault.Vault, error)
	// Budget bounds the run (0: none): past it, Run returns
	// [ErrAbandoned] and leaves the store to finish or die with the
	// process.
	Budget time.Duration
}

// ErrAbandoned: the capture took longer than its budget.
var ErrAbandoned = errors.New("capture: abandoned")

// Run reads the input and stores its memories. While the vault is locked
// it stores nothing: a memory file's path, or a turn's transcript and turn
// id, goes on the pending list for the next unlock (where it is, never the
// content); a turn without them is dropped with an error. An input that
// holds nothing to store is skipped, with the reason in the report.
func (h Hook) Run() (HookReport, error) {
	if h.Budget <= 0 {
		return h.run()
	}
	type result struct {
		rep HookReport
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := h.run()
		done <- result{rep, err}
	}()
	select {
	case r := <-done:
		return r.rep, r.err
	case <-time.After(h.Budget):
		return HookReport{}, fmt.Errorf("%w: the capture took longer than %s", ErrAbandoned, h.Budget)
	}
}

func (h Hook) run() (HookReport, error) {
	raw, err := io.ReadAll(io.LimitReader(h.In, MaxHookInput))
	if err != nil {
		return HookReport{}, fmt.Errorf("read stdin: %w", err)
	}
	in, err := ParseInput(raw)
	if err != nil {
		return HookReport{Skipped: "input is not a JSON object"}, err
	}
	var mems []Memory
	caller, source, discovered, file := h.Caller, "from chat", "", ""
	if in.Event != nil {
		if file = in.Event.MemoryFile(h.Env); file == "" {
			return HookReport{Skipped: "not a memory file"}, nil
		}
		text, day, err := ReadMemoryFile(h.Env, file)
		if err != nil {
			return HookReport{Skipped: "the file is not one the hook reads"}, err
		}
		source, discovered = FileSource(file), day
		mems = File(text, MaxChars)
		if !h.CallerSet {
			caller = DefaultCaller
		}
	} else {
		mems = FromTurn(*in.Turn, MaxChars)
	}
	if len(mems) == 0 {
		return HookReport{Skipped: "nothing to store"}, nil
	}
	u, ok := h.Credential()
	if !ok {
		if file == "" && !in.Turn.Listable() {
			return HookReport{Skipped: "the vault is locked"}, errors.New("a turn was not stored: the vault is locked, and the turn names no transcript_path and turn_id to read it back from")
		}
		if _, err := os.Stat(h.Vault); errors.Is(err, os.ErrNotExist) {
			return HookReport{Skipped: "no vault"}, fmt.Errorf("no vault at %s: create one with `compartment init`", h.Vault)
		} else if err != nil {
			return HookReport{Skipped: "no vault"}, err
		}
		if file == "" {
			return HookReport{Pending: true}, AddPendingTurn(h.Vault, in.Turn.TranscriptPath, in.Turn.TurnID, caller, time.Now())
		}
		return HookReport{Pending: true}, AddPending(h.Vault, file, caller, time.Now())
	}
	v, err := h.Open(u, caller)
	if err != nil {
		return HookReport{}, err
	}
	defer v.Close()
	n, err := Store(v, mems, source, discovered, "")
	return HookReport{Stored: n.Stored, Duplicates: n.Duplicates}, err
}

// HookState is the capture hook as `hook status` reports it: where it is
// installed, and what waits for the next unlock (shape.HookState, where
// it lives so the panel decodes it without the vault).
type HookState = shape.HookState

// Status reads the hook's state for the vault at vaultPath; unlocked says
// whether a key is at hand.
func Status(e integrate.Env, vaultPath string, unlocked bool) (HookState, error) {
	cmds, err := integrate.HookCommands(e)
	if err != nil {
		return HookState{}, err
	}
	waiting, err := Pending(vaultPath)
	if err != nil {
		return HookState{}, err
	}
	return HookState{Installed: len(cmds) > 0, Commands: cmds, Settings: integrate.ClaudeSettings(e), VaultUnlocked: unlocked,
		Pending: len(waiting), PendingList: PendingPath(vaultPath), Waiting: waiting}, nil
}
