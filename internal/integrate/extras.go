package integrate

import "fmt"

// Step is one file `integrate` wrote beyond a client's MCP entry, and how
// to describe it.
type Step struct {
	What   string // "Claude Code: capture hook"
	Change Change
	Note   string // a line to print after it, "" for none
}

// ExtraOptions say which of a client's extra steps to take.
type ExtraOptions struct {
	Options
	NoSkill     bool   // the /compartmentalize skill (Claude Code, Hermes Agent, OpenClaw)
	NoProvider  bool   // Hermes Agent's memory provider
	NoHook      bool   // Claude Code's capture hook
	HookCommand string // the hook's command line
}

// WireExtras takes the steps that come with a client after its MCP entry:
// the skill where the client has a skills directory, Hermes Agent's memory
// provider, and Claude Code's memory instructions and capture hook. It
// stops at the first error, returning the steps taken.
func WireExtras(e Env, st *State, c *Client, s Server, opt ExtraOptions) ([]Step, error) {
	var steps []Step
	if c.Skills != nil && !opt.NoSkill {
		ch, err := InstallSkill(e, st, c, opt.DryRun)
		if err != nil {
			return steps, err
		}
		step := Step{What: c.Name + ": /compartmentalize skill", Change: ch}
		if ch.Backup != "" {
			step.Note = "your changed copy was kept at " + ch.Backup
		}
		steps = append(steps, step)
	}
	if c.ID == "hermes" && !opt.NoProvider {
		chs, err := InstallHermesProvider(e, st, s, opt.Options)
		for _, ch := range chs {
			steps = append(steps, Step{What: c.Name + ": memory provider", Change: ch})
		}
		if err != nil {
			return steps, err
		}
		steps[len(steps)-1].Note = "Hermes recalls from the vault before every turn and stores what each turn holds; check with `hermes memory status`"
	}
	if c.ID != "claude-code" {
		return steps, nil
	}
	md, err := InstallClaudeMD(e, st, opt.DryRun)
	if err != nil {
		return steps, err
	}
	steps = append(steps, Step{What: "Claude Code: memory instructions in CLAUDE.md", Change: md})
	if !opt.NoHook {
		hk, err := InstallHook(e, st, opt.HookCommand, opt.DryRun)
		if err != nil {
			return steps, err
		}
		steps = append(steps, Step{What: "Claude Code: capture hook", Change: hk})
	}
	return steps, nil
}

// ClaudeDesktopHint is what `integrate claude` says about Claude Desktop,
// which reads its own file.
func ClaudeDesktopHint(e Env, s Server) string {
	d, _ := Find("claude-desktop")
	return fmt.Sprintf("For Claude Desktop, `compartment integrate claude-desktop` writes %s, or paste:\n\n%s", d.File(e), Block(d, s))
}
