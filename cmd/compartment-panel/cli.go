package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/compartment/compartment/internal/integrate"
	"github.com/compartment/compartment/internal/shape"
)

// CLI runs the compartment command for every piece of state the panel
// shows, so the panel itself holds no vault, no key and no index: it costs
// nothing while idle. Secrets go to the child on stdin or in its
// environment, never in its arguments.
type CLI struct {
	Bin     string // the compartment executable
	Vault   string // --vault, empty for the CLI's default
	Keyfile string // --keyfile, a path (not a secret)
	Timeout time.Duration
}

// findCLI returns the compartment binary beside this executable, else the
// one on PATH.
func findCLI() (string, error) {
	if self, err := os.Executable(); err == nil {
		name := "compartment"
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		p := filepath.Join(filepath.Dir(self), name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath("compartment")
	if err != nil {
		return "", errors.New("the compartment command was not found beside the panel or on PATH; install it (make install) and start the panel again")
	}
	return p, nil
}

// run runs one command and returns its stdout. A failure comes back as the
// CLI's own one-sentence message.
func (c *CLI) run(stdin string, env []string, args ...string) ([]byte, error) {
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var full []string
	if c.Vault != "" {
		full = append(full, "--vault", c.Vault)
	}
	if c.Keyfile != "" {
		full = append(full, "--keyfile", c.Keyfile)
	}
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, c.Bin, full...)
	cmd.Stdin = strings.NewReader(stdin)
	// The panel's own COMPARTMENT_PASSPHRASE, if any, is never passed on:
	// each call gets only what it is given.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "COMPARTMENT_PASSPHRASE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if i := strings.LastIndex(msg, "\n"); i >= 0 {
			msg = msg[i+1:]
		}
		msg = strings.TrimPrefix(msg, "compartment: ")
		if msg == "" {
			msg = fmt.Sprintf("compartment %s failed (%v)", args[0], err)
		}
		return out.Bytes(), errors.New(msg)
	}
	return out.Bytes(), nil
}

func (c *CLI) runJSON(v any, args ...string) error {
	out, err := c.run("", nil, args...)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, v); err != nil {
		return fmt.Errorf("compartment %s printed something the panel cannot read: %v", args[0], err)
	}
	return nil
}

// State is everything the panel shows, read fresh from the CLI.
type State struct {
	Locked      bool
	Missing     bool // no vault file yet
	NeedKeyfile bool // locked, and unlocking needs the keyfile (two-factor unlock)
	Path        string
	Live        int
	Organic     int // the user's own: not reference facts, not packs
	Reference   int
	Packs       int
	HookOn      bool
	RefInSearch bool
	AutoLockMin int
	Agents      map[string]bool // client id -> wired
	// Connectable is the Connect list, in the order shown: the agents the
	// panel always offers, then every other client installed here whose
	// file `compartment integrate` can write.
	Connectable []Agent
	Recent      []string
}

// Agent is one row of the Connect list.
type Agent struct{ ID, Name string }

// panelAgents are offered whether or not they are installed (the spec's
// Connect an agent buttons), first and in this order.
var panelAgents = []Agent{
	{"claude-code", "Claude Code"},
	{"hermes", "Hermes Agent"},
	{"openclaw", "OpenClaw"},
}

// connectable is the Connect list for the clients `integrate --list`
// reported.
func connectable(clients []integrate.ClientRow) []Agent {
	out := append([]Agent(nil), panelAgents...)
	fixed := map[string]bool{}
	for _, a := range panelAgents {
		fixed[a.ID] = true
	}
	for _, cl := range clients {
		if !fixed[cl.Client] && cl.Installed && cl.File != "" {
			out = append(out, Agent{cl.Client, cl.Name})
		}
	}
	return out
}

// Load reads the state. Parts that need an open vault are left empty when
// it is locked.
func (c *CLI) Load() (State, error) {
	var st State
	var status shape.StatusJSON
	if err := c.runJSON(&status, "status", "--json"); err != nil {
		if strings.Contains(err.Error(), "no vault") || strings.Contains(err.Error(), "does not exist") {
			st.Missing = true
		}
		return st, err
	}
	st.Path, st.Locked, st.NeedKeyfile = status.Path, status.Locked, status.KeyfileRequired
	if v := status.Status; v != nil {
		st.Live, st.Organic, st.Reference, st.Packs = v.Live, v.OrganicRecords, v.ReferenceRecords, v.PackRecords
	}
	var cfg struct {
		Ref      bool `json:"include_reference_in_search"`
		AutoLock int  `json:"auto_lock_minutes"`
	}
	if err := c.runJSON(&cfg, "config", "get", "--json"); err == nil {
		st.RefInSearch, st.AutoLockMin = cfg.Ref, cfg.AutoLock
	}
	var hook shape.HookState
	if err := c.runJSON(&hook, "hook", "status", "--json"); err == nil {
		st.HookOn = hook.Installed
	}
	var clients []integrate.ClientRow
	st.Agents = map[string]bool{}
	if err := c.runJSON(&clients, "integrate", "--list", "--json"); err == nil {
		for _, cl := range clients {
			st.Agents[cl.Client] = cl.Wired
		}
	}
	st.Connectable = connectable(clients)
	if !st.Locked {
		st.Recent = c.newestOwn()
	}
	return st, nil
}

// Unlock unlocks the vault for every process of the user; the passphrase
// travels on the child's stdin only.
func (c *CLI) Unlock(pass string) error {
	_, err := c.run(pass+"\n", nil, "unlock", "--passphrase-stdin", "--json")
	return err
}

// Lock locks the vault for every process.
func (c *CLI) Lock() error {
	_, err := c.run("", nil, "lock", "--json")
	return err
}

// Rekey changes the passphrase: the old one in the child's environment,
// the new one on its stdin.
func (c *CLI) Rekey(old, new string) error {
	_, err := c.run(new+"\n", []string{"COMPARTMENT_PASSPHRASE=" + old}, "rekey", "--new-passphrase-stdin")
	return err
}

// SetHook installs or removes Claude Code's capture hook.
func (c *CLI) SetHook(on bool) error {
	verb := "uninstall"
	if on {
		verb = "install"
	}
	_, err := c.run("", nil, "hook", verb)
	return err
}

// SetConfig changes one setting.
func (c *CLI) SetConfig(key, value string) error {
	_, err := c.run("", nil, "config", "set", key, value)
	return err
}

// Connect wires one agent, as `compartment integrate <client>` does.
func (c *CLI) Connect(client string) error {
	_, err := c.run("", nil, "integrate", client)
	return err
}

// newestOwn is the newest memories of the user's own, newest first:
// `recent` leaves reference facts out but lists packs' records, which are
// not the user's either.
func (c *CLI) newestOwn() []string {
	var recent []shape.Record
	if err := c.runJSON(&recent, "recent", "--limit", "50", "--json"); err != nil {
		return nil
	}
	// Sorted here, whatever order `recent` prints in.
	slices.SortStableFunc(recent, func(a, b shape.Record) int { return b.Created.Compare(a.Created) })
	var out []string
	for _, r := range recent {
		if ns := r.Namespace; len(out) < maxNewest && ns != "packs" && !strings.HasPrefix(ns, "packs/") {
			out = append(out, r.Text)
		}
	}
	return out
}

// maxNewest is how many of the newest memories the panel lists.
const maxNewest = 5
