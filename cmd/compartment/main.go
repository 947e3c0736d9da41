// Command compartment is the CLI of compartment: an encrypted, offline,
// persistent memory for AI agents. It parses flags, calls into internal/,
// and prints text or --json. Business logic lives elsewhere.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/compartment/compartment/internal/offline"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/session"
)

// version is set by the build (-ldflags "-X main.version=...").
var version = "dev"

// CLI is the whole command tree. Each command lives in its own file,
// cmd_<name>.go, and is registered here with one line.
type CLI struct {
	Globals

	Version kong.VersionFlag `help:"Print the version and exit."`

	Init   InitCmd   `cmd:"" help:"Create a new encrypted vault."`
	Store  StoreCmd  `cmd:"" help:"Store one memory (one claim, with its source)."`
	Get    GetCmd    `cmd:"" help:"Print one memory by id."`
	Search SearchCmd `cmd:"" help:"Recall memories: hybrid search, relevance cut, filters."`
	Forget ForgetCmd `cmd:"" help:"Forget a memory (--shred destroys it in the file)."`
	Status StatusCmd `cmd:"" help:"Counts, sizes, format, key slots, model."`
	Export ExportCmd `cmd:"" help:"Write every memory as plaintext JSONL."`
	Import ImportCmd `cmd:"" help:"Read JSONL (an export, or lines with text) into the vault."`
	Verify VerifyCmd `cmd:"" help:"Check structure, seals, audit chain and signature."`
	Rekey  RekeyCmd  `cmd:"" help:"Change the passphrase."`
	Lock   LockCmd   `cmd:"" help:"Flush, compact and lock the vault for every process (--sign to sign it)."`
	Unlock UnlockCmd `cmd:"" help:"Unlock the vault for every process of yours until reboot, lock or auto-lock."`
	TwoFA  TwoFACmd  `cmd:"" name:"2fa" help:"Two-factor unlock (passphrase + keyfile): enable, disable, status."`

	Serve      ServeCmd      `cmd:"" help:"Run the MCP stdio server agents use (the memory_* tools)."`
	Recent     RecentCmd     `cmd:"" help:"List the newest memories (reference facts hidden unless --all)."`
	Namespaces NamespacesCmd `cmd:"" help:"List namespaces with their counts and your access."`
	Link       LinkCmd       `cmd:"" help:"Record a relation: SUBJECT PREDICATE OBJECT."`
	Relations  RelationsCmd  `cmd:"" help:"Query relations by entity, subject, predicate, object or date."`
	Unlink     UnlinkCmd     `cmd:"" help:"Remove a relation by id."`
	Expire     ExpireCmd     `cmd:"" help:"Remove memories past their expiry day now."`
	Audit      AuditCmd      `cmd:"" help:"Check (verify) or re-anchor (repair) the audit chain."`
	Config     ConfigCmd     `cmd:"" help:"Read or change settings (get, set)."`
	Dash       DashCmd       `cmd:"" help:"Open the read-only dashboard in your browser (127.0.0.1 only)."`
	Panel      PanelCmd      `cmd:"" help:"Open the desktop panel: unlock, lock, settings, connect agents (--login on|off|status)."`

	Embed       EmbedCmd       `cmd:"" help:"Embed a text with the local model (checks your setup)."`
	EmbedDaemon EmbedDaemonCmd `cmd:"" name:"embed-daemon" help:"The shared embedding daemon: run, status, stop."`
	Setup       SetupCmd       `cmd:"" help:"One-time installation steps (download-model, download-longmemeval, airgap-bundle)."`
	Reindex     ReindexCmd     `cmd:"" help:"Embed records with the current model, or switch model (--model)."`
	Atomize     AtomizeCmd     `cmd:"" help:"Split memories that are not one claim: --out FILE --plaintext, then --apply PLAN."`
	Opinions    OpinionsCmd    `cmd:"" help:"Opinion upkeep: audit overlapping live opinions."`
	Retag       RetagCmd       `cmd:"" help:"Give memories the tags their nearest neighbours carry (--prune, --dry-run)."`
	Bench       BenchCmd       `cmd:"" help:"Benchmarks: the latency table (no flag), --vectors, --longmemeval, --claims."`

	Integrate    IntegrateCmd    `cmd:"" help:"Wire MCP clients to the vault: claude, hermes, openclaw, codex, ... (--list, --all)."`
	Hook         HookCmd         `cmd:"" help:"Claude Code's capture hook: install, uninstall, status, capture."`
	ImportClaude ImportClaudeCmd `cmd:"" name:"import-claude" help:"Copy what Claude Code wrote in its memory files into the vault (repeatable)."`
	Uninstall    UninstallCmd    `cmd:"" help:"Take back everything integrate, hook and the skill wrote (--purge also deletes the vault)."`
	Reference    ReferenceCmd    `cmd:"" help:"The bundled reference facts: update (load or upgrade them)."`
	Pack         PackCmd         `cmd:"" help:"Signed memory packs: build, export, install, remove, list, trust, key."`
	Selftest     SelftestCmd     `cmd:"" help:"Check this install end to end: seal, audit, index, offline guard, model, 20 reference questions."`
	Probe        ProbeCmd        `cmd:"" name:"offline-probe" hidden:"" help:"(internal) Install the offline guard and test it."`
	Update       UpdateCmd       `cmd:"" help:"Replace this program with a signed release you brought here (--from); never downloads."`
	Sync         SyncCmd         `cmd:"" help:"One memory on every device through a folder Syncthing or any file-sync engine shares: init, join, status, now, leave."`
}

// Globals are the flags every command understands.
type Globals struct {
	// Vault and Keyfile are expanded by expandPath, not by kong's path
	// type, which takes the home directory from the passwd entry and so
	// ignores $HOME.
	Vault         string `help:"Vault file." env:"COMPARTMENT_VAULT" default:"~/.compartment/memory.vault" placeholder:"PATH"`
	Caller        string `help:"Who is calling (selects the default namespace and the grants)." default:"user" placeholder:"NAME"`
	Keyfile       string `help:"Keyfile for a vault with two-factor unlock." placeholder:"PATH"`
	AssertOffline bool   `help:"Refuse, in the kernel, any attempt of this process to open a network socket." env:"COMPARTMENT_ASSERT_OFFLINE"`

	// AcceptRollback opens a vault older than the newest state this machine has seen.
	AcceptRollback bool `help:"Open the vault even if it is older than the newest state this machine has seen (after restoring a backup on purpose)."`
}

// App is what every command's Run receives: the parsed globals and where to
// print.
type App struct {
	*Globals
	// noSweep skips the expiry sweep openVault otherwise runs.
	noSweep bool
	Stdout  io.Writer
	Stderr  io.Writer
	Stdin   io.Reader

	// sync is the vault's sync folder, attached when it was opened.
	sync syncState
	// keySource is where the credential the command opened with came
	// from, so a wrong one is named ("" before any was obtained).
	keySource session.Source
}

// exitError carries a specific exit status for the error it wraps.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run parses args, runs the command and turns any error into one line on
// stderr and a non-zero status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Nothing reaches the terminal raw: see render.Writer.
	out, errw := render.NewWriter(stdout), render.NewWriter(stderr)
	defer out.Flush()
	defer errw.Flush()
	stdout, stderr = out, errw
	var cli CLI
	exited := -1
	parser, err := kong.New(&cli,
		kong.Name("compartment"),
		kong.Description("Encrypted, fully offline, persistent memory for AI agents."),
		kong.UsageOnError(),
		kong.Vars{"version": version},
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { exited = code; panic(exitPanic{}) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		fmt.Fprintf(stderr, "compartment: %v\n", err)
		return 2
	}
	code, done := parseAndRun(parser, &cli, args, stdin, stdout, stderr)
	if exited >= 0 {
		return exited
	}
	if done {
		return code
	}
	return 0
}

type exitPanic struct{}

func parseAndRun(parser *kong.Kong, cli *CLI, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int, done bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(exitPanic); !ok {
				panic(r)
			}
		}
	}()
	ctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "compartment: %s\n", render.ErrorLine(errors.New(parseErrorSentence(err))))
		return 2, true
	}
	cli.Vault = expandPath(cli.Vault)
	if cli.Keyfile != "" {
		cli.Keyfile = expandPath(cli.Keyfile)
	}
	if cli.AssertOffline {
		if err := offline.Enforce(); err != nil {
			fmt.Fprintf(stderr, "compartment: --assert-offline: %v\n", err)
			return 1, true
		}
		// Processes this one starts (the embedding daemon) inherit it.
		os.Setenv("COMPARTMENT_ASSERT_OFFLINE", "1")
	}
	// Before any key is read: no core file may hold it (or memories).
	if err := session.ForbidCoreDumps(); err != nil {
		fmt.Fprintf(stderr, "compartment: %v\n", err)
		return 1, true
	}
	app := &App{Globals: &cli.Globals, Stdout: stdout, Stderr: stderr, Stdin: stdin}
	if err := ctx.Run(app); err != nil {
		err = runErrorSentence(err, cli.Vault, app.keySource)
		fmt.Fprintf(stderr, "compartment: %s\n", render.ErrorLine(err))
		var ee *exitError
		if errors.As(err, &ee) {
			return ee.code, true
		}
		return 1, true
	}
	return 0, true
}

// defaultCaller is --caller's default.
const defaultCaller = "user"

// homeDir is $HOME, the home directory everything in compartment uses
// (falling back to the system's idea of it when $HOME is unset).
func homeDir() string {
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// defaultVault is the vault used when neither --vault nor
// COMPARTMENT_VAULT names one.
func defaultVault() string { return filepath.Join(homeDir(), ".compartment", "memory.vault") }

// expandPath turns a leading ~ into $HOME and makes the path absolute.
func expandPath(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		p = filepath.Join(homeDir(), p[1:])
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
