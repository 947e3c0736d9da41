//go:build cgo || windows

package main

import (
	"fmt"
	"image"
	"image/color"
	"strings"
	"sync"
	"time"

	"gioui.org/font"
	"gioui.org/font/gofont"
	"gioui.org/io/key"
	"gioui.org/layout"
	"gioui.org/op/paint"
	"gioui.org/text"
	"gioui.org/unit"
	"gioui.org/widget"
	"gioui.org/widget/material"
)

// autoLockChoices are the auto-lock settings the panel offers, as shown
// and as auto_lock_minutes values (0 is never). Each key is the value's
// text, the widget.Enum's value.
var autoLockChoices = []struct {
	Label   string
	Minutes int
}{
	{"15 min", 15}, {"30 min", 30}, {"60 min", 60}, {"never", 0},
}

// Panel is the window's content and what it does. Every action runs the
// CLI on a goroutine of its own, so the window stays responsive (and keeps
// drawing its wait indicator) while a wrong passphrase waits out the
// vault's delay. Between actions it runs nothing: Gio draws a frame only
// when an input event or an Invalidate asks for one.
type Panel struct {
	cli        *CLI
	th         *material.Theme
	invalidate func() // asks the window for a new frame; safe from any goroutine
	quit       func()
	inflight   sync.WaitGroup // actions in flight (tests and --render wait on it)

	mu      sync.Mutex // guards the fields below, written by the action goroutines
	st      State
	err     error
	busy    bool
	fresh   bool         // st is newer than the widgets
	pending func() error // the action to run when the one in flight ends

	// The widgets' state: the window's goroutine only.
	shown      State
	errText    string
	list       widget.List
	passEd     widget.Editor
	keyEd      widget.Editor
	unlockBtn  widget.Clickable
	lockBtn    widget.Clickable
	rekeyBtn   widget.Clickable
	refreshBtn widget.Clickable
	quitBtn    widget.Clickable
	rekeyOpen  bool
	oldEd      widget.Editor
	newEd      widget.Editor
	againEd    widget.Editor
	rekeyDo    widget.Clickable
	rekeyNo    widget.Clickable
	hook       widget.Bool
	ref        widget.Bool
	autoLock   widget.Enum
	agentBtns  []widget.Clickable
	focusPass  bool // move the keyboard focus to the passphrase field next frame
}

// NewPanel builds the panel; Refresh fills it.
func NewPanel(cli *CLI, invalidate func()) *Panel {
	th := material.NewTheme()
	// The Go fonts only: the same picture everywhere, and no scan of the
	// system's fonts (nor a font cache written) at start.
	th.Shaper = text.NewShaper(text.NoSystemFonts(), text.WithCollection(gofont.Collection()))
	th.TextSize = 15
	p := &Panel{cli: cli, th: th, invalidate: invalidate, quit: func() {}}
	p.list.Axis = layout.Vertical
	for _, e := range []*widget.Editor{&p.passEd, &p.keyEd, &p.oldEd, &p.newEd, &p.againEd} {
		e.SingleLine = true
	}
	for _, e := range []*widget.Editor{&p.passEd, &p.oldEd, &p.newEd, &p.againEd} {
		e.Mask = '•'
	}
	p.passEd.Submit = true
	// Room for every client, so growing the list never moves a button.
	p.agentBtns = make([]widget.Clickable, len(panelAgents), 32)
	return p
}

// do runs an action off the window's goroutine, then reloads the state.
// Actions run one at a time, all on one goroutine, so the CLI (and its
// keyfile) is only ever used there. While one runs the panel shows that
// it is waiting and its buttons take no clicks; the text fields stay
// live, and an action asked for meanwhile (Return in the passphrase field)
// runs when the one in flight ends. An error stays in the window until the
// next action.
func (p *Panel) do(action func() error) {
	p.mu.Lock()
	if p.busy {
		p.pending = action
		p.mu.Unlock()
		return
	}
	p.busy = true
	p.mu.Unlock()
	p.inflight.Add(1)
	p.invalidate()
	go func() {
		defer p.inflight.Done()
		for action != nil {
			err := action()
			st, lerr := p.cli.Load()
			if err == nil {
				err = lerr
			}
			p.mu.Lock()
			p.st, p.err, p.fresh = st, err, true
			action, p.pending = p.pending, nil
			p.busy = action != nil
			p.mu.Unlock()
			p.invalidate()
		}
	}()
}

// Refresh reloads the state from the CLI; while an action runs it does
// nothing, as the action reloads when it ends.
func (p *Panel) Refresh() {
	if !p.Busy() {
		p.do(func() error { return nil })
	}
}

// Wait blocks until every action started so far has finished.
func (p *Panel) Wait() { p.inflight.Wait() }

// Busy reports whether an action is running.
func (p *Panel) Busy() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.busy
}

// unlock unlocks with what is typed; the field is cleared at once so the
// passphrase stays in memory no longer than the call.
func (p *Panel) unlock() {
	pass := p.passEd.Text()
	if pass == "" {
		p.errText = "Type your passphrase, then press Unlock."
		return
	}
	p.passEd.SetText("")
	keyfile := ""
	if p.shown.NeedKeyfile { // the field is shown only then
		keyfile = strings.TrimSpace(p.keyEd.Text())
	}
	p.do(func() error {
		p.cli.Keyfile = keyfile
		return p.cli.Unlock(pass)
	})
}

// rekey changes the passphrase with what the three fields hold.
func (p *Panel) rekey() {
	old, nw, again := p.oldEd.Text(), p.newEd.Text(), p.againEd.Text()
	for _, e := range []*widget.Editor{&p.oldEd, &p.newEd, &p.againEd} {
		e.SetText("")
	}
	switch {
	case old == "" || nw == "":
		p.errText = "Type the current passphrase and the new one (twice), then press Change."
		return
	case nw != again:
		p.errText = "The two new passphrases differ; nothing was changed, type them again."
		return
	}
	p.rekeyOpen = false
	p.do(func() error { return p.cli.Rekey(old, nw) })
}

// View is what the panel says, as text (the window draws it; the tests
// read it).
type View struct {
	State, Counts, Err string
	Agents             []string // "Claude Code: connected", in State.Connectable order
	AgentIDs           []string // the client id of each line of Agents
	Recent             []string
	Locked, Busy       bool
	Missing            bool // no vault: nothing to unlock, lock or rekey
	NeedKeyfile        bool // locked with two-factor unlock: ask for the keyfile too
}

// view derives what to say from the last state and error.
func view(st State, err error, busy bool) View {
	v := View{Busy: busy, Locked: st.Locked || st.Path == "", Missing: st.Missing, NeedKeyfile: st.Locked && st.NeedKeyfile}
	if err != nil {
		v.Err = sentence(friendly(err).Error())
	}
	switch {
	case st.Missing:
		v.State = "No vault" // the error says to run `compartment init`
	case st.Path == "":
		v.State = "Vault unavailable"
	case st.Locked:
		v.State = "Locked — " + st.Path
	default:
		v.State = "Open — " + st.Path
	}
	switch {
	case v.Missing:
	case v.Locked:
		v.Counts = "Unlock to see your memories."
	default:
		v.Counts = ownCounts(st)
	}
	agents := st.Connectable
	if agents == nil {
		agents = panelAgents
	}
	for _, ag := range agents {
		v.AgentIDs = append(v.AgentIDs, ag.ID)
		if st.Agents[ag.ID] {
			v.Agents = append(v.Agents, ag.Name+": connected")
		} else {
			v.Agents = append(v.Agents, ag.Name+": not connected")
		}
	}
	for _, r := range st.Recent {
		v.Recent = append(v.Recent, inert(r))
	}
	if len(v.Recent) == 0 && !v.Locked {
		v.Recent = []string{"(no memories yet)"}
	}
	return v
}

// ownCounts leads with the user's own memories; reference facts and packs
// follow, when there are any.
func ownCounts(st State) string {
	own := fmt.Sprintf("%d memories of your own", st.Organic)
	if st.Organic == 1 {
		own = "1 memory of your own"
	}
	var also []string
	if st.Reference > 0 {
		also = append(also, fmt.Sprintf("%d reference facts", st.Reference))
	}
	if st.Packs > 0 {
		also = append(also, fmt.Sprintf("%d from packs", st.Packs))
	}
	if len(also) == 0 {
		return own
	}
	return own + " (and " + strings.Join(also, ", ") + ")"
}

// View returns what the panel says now, including a message of its own
// (an empty passphrase field, two new passphrases that differ).
func (p *Panel) View() View {
	p.mu.Lock()
	v := view(p.st, p.err, p.busy)
	p.mu.Unlock()
	if p.errText != "" {
		v.Err = p.errText
	}
	return v
}

// sentence makes a message one sentence: a capital first, a full stop last.
func sentence(msg string) string {
	if msg == "" {
		return msg
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// friendly adds what to do to the CLI's messages people meet most.
func friendly(err error) error {
	switch msg := err.Error(); {
	case strings.Contains(msg, "wrong passphrase"):
		return fmt.Errorf("wrong passphrase (or keyfile); type it again and press Unlock")
	case strings.Contains(msg, "needs its keyfile"):
		return fmt.Errorf("two-factor unlock needs the keyfile too: type its path in the Keyfile field (or attach the media that holds it) and press Unlock")
	}
	return err
}

// inert makes a memory's text safe to show as one line: control
// characters become spaces. (Gio draws text as text; nothing in it is
// ever interpreted as markup or a link.)
func inert(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
}

// update applies a fresh state to the widgets and handles this frame's
// input: clicks, submitted fields and changed settings.
func (p *Panel) update(gtx layout.Context) {
	p.mu.Lock()
	if p.fresh {
		p.fresh = false
		p.shown = p.st
		p.errText = ""
		p.hook.Value, p.ref.Value = p.st.HookOn, p.st.RefInSearch
		p.autoLock.Value = ""
		for _, c := range autoLockChoices {
			if c.Minutes == p.st.AutoLockMin {
				p.autoLock.Value = c.Label
			}
		}
		p.focusPass = p.st.Locked
	}
	busy := p.busy
	p.mu.Unlock()
	if p.focusPass {
		p.focusPass = false
		gtx.Execute(key.FocusCmd{Tag: &p.passEd})
	}
	// The passphrase field is live even while an action runs (its events
	// would otherwise be dropped when it is drawn).
	for {
		ev, ok := p.passEd.Update(gtx)
		if !ok {
			break
		}
		if _, ok := ev.(widget.SubmitEvent); ok {
			p.unlock()
		}
	}
	if busy {
		return
	}
	if p.unlockBtn.Clicked(gtx) {
		p.unlock()
	}
	if p.lockBtn.Clicked(gtx) {
		p.do(p.cli.Lock)
	}
	if p.refreshBtn.Clicked(gtx) {
		p.Refresh()
	}
	if p.quitBtn.Clicked(gtx) {
		p.quit()
	}
	if p.rekeyBtn.Clicked(gtx) {
		p.rekeyOpen = !p.rekeyOpen
	}
	if p.rekeyNo.Clicked(gtx) {
		p.rekeyOpen = false
	}
	if p.rekeyDo.Clicked(gtx) {
		p.rekey()
	}
	if p.hook.Update(gtx) {
		on := p.hook.Value
		p.do(func() error { return p.cli.SetHook(on) })
	}
	if p.ref.Update(gtx) {
		on := p.ref.Value
		p.do(func() error { return p.cli.SetConfig("include_reference_in_search", fmt.Sprint(on)) })
	}
	if p.autoLock.Update(gtx) {
		for _, c := range autoLockChoices {
			if c.Label == p.autoLock.Value {
				minutes := c.Minutes
				p.do(func() error { return p.cli.SetConfig("auto_lock_minutes", fmt.Sprint(minutes)) })
			}
		}
	}
	ids := p.View().AgentIDs
	for i := range p.agentBtns {
		if p.agentBtns[i].Clicked(gtx) && i < len(ids) {
			id := ids[i]
			p.do(func() error { return p.cli.Connect(id) })
		}
	}
}

var (
	danger = color.NRGBA{R: 0xb0, G: 0x1c, B: 0x1c, A: 0xff}
	muted  = color.NRGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
)

// Layout handles the frame's input and draws the panel.
func (p *Panel) Layout(gtx layout.Context) layout.Dimensions {
	p.update(gtx)
	v := p.View()
	th := p.th
	// Every button and setting is drawn disabled while an action runs.
	act := func(w layout.Widget, ok bool) layout.Widget {
		return func(gtx layout.Context) layout.Dimensions {
			if v.Busy || !ok {
				gtx = gtx.Disabled()
			}
			return w(gtx)
		}
	}
	var rows []layout.Widget
	add := func(w ...layout.Widget) { rows = append(rows, w...) }
	heading := func(s string) layout.Widget {
		return func(gtx layout.Context) layout.Dimensions {
			l := material.Subtitle1(th, s)
			l.Font.Weight = font.Bold
			return layout.Inset{Top: unit.Dp(14), Bottom: unit.Dp(4)}.Layout(gtx, l.Layout)
		}
	}
	label := func(s string, c color.NRGBA) layout.Widget {
		return func(gtx layout.Context) layout.Dimensions {
			l := material.Body1(th, s)
			l.Color = c
			return layout.Inset{Bottom: unit.Dp(4)}.Layout(gtx, l.Layout)
		}
	}
	button := func(c *widget.Clickable, s string) layout.Widget {
		return material.Button(th, c, s).Layout
	}
	row := func(children ...layout.FlexChild) layout.Widget {
		return func(gtx layout.Context) layout.Dimensions {
			return layout.Inset{Top: unit.Dp(4), Bottom: unit.Dp(4)}.Layout(gtx, func(gtx layout.Context) layout.Dimensions {
				return layout.Flex{Alignment: layout.Middle}.Layout(gtx, children...)
			})
		}
	}
	gap := layout.Rigid(layout.Spacer{Width: unit.Dp(8)}.Layout)
	field := func(e *widget.Editor, hint string) layout.Widget {
		return func(gtx layout.Context) layout.Dimensions {
			return layout.Inset{Top: unit.Dp(4), Bottom: unit.Dp(4)}.Layout(gtx, func(gtx layout.Context) layout.Dimensions {
				return widget.Border{Color: muted, CornerRadius: unit.Dp(3), Width: unit.Dp(1)}.Layout(gtx, func(gtx layout.Context) layout.Dimensions {
					return layout.UniformInset(unit.Dp(6)).Layout(gtx, material.Editor(th, e, hint).Layout)
				})
			})
		}
	}

	st := material.H6(th, v.State)
	st.MaxLines = 2
	add(st.Layout)
	if v.Counts != "" {
		add(label(v.Counts, th.Fg))
	}
	if v.Err != "" {
		add(label(v.Err, danger))
	}
	if v.Busy {
		add(row(
			layout.Rigid(func(gtx layout.Context) layout.Dimensions {
				gtx.Constraints.Max = image.Pt(gtx.Dp(20), gtx.Dp(20))
				return material.Loader(th).Layout(gtx)
			}),
			gap,
			layout.Rigid(material.Body2(th, "Working… (a wrong passphrase waits a few seconds)").Layout),
		))
	}
	// Without a vault there is nothing to type a passphrase for: the
	// buttons stay, greyed, under the error that says how to make one.
	if v.Locked && !v.Missing {
		add(field(&p.passEd, "Passphrase"))
		if v.NeedKeyfile {
			add(field(&p.keyEd, "Keyfile path (empty: the one last used)"))
		}
	}
	if v.Locked {
		add(act(button(&p.unlockBtn, "Unlock"), !v.Missing))
	}
	add(row(
		layout.Flexed(1, act(button(&p.lockBtn, "Lock"), !v.Locked)), gap,
		layout.Flexed(1, act(button(&p.rekeyBtn, "Change passphrase"), !v.Missing)), gap,
		layout.Flexed(1, act(button(&p.refreshBtn, "Refresh"), true)),
	))
	if p.rekeyOpen && !v.Missing {
		add(field(&p.oldEd, "Current passphrase"), field(&p.newEd, "New passphrase"),
			field(&p.againEd, "New passphrase again"),
			row(layout.Rigid(act(button(&p.rekeyDo, "Change"), true)), gap,
				layout.Rigid(act(button(&p.rekeyNo, "Cancel"), true))))
	}
	var radios []layout.FlexChild
	for _, c := range autoLockChoices {
		radios = append(radios, layout.Rigid(act(material.RadioButton(th, &p.autoLock, c.Label, c.Label).Layout, true)))
	}
	add(heading("Settings"),
		act(material.CheckBox(th, &p.hook, "Capture hook (Claude Code stores what it learns)").Layout, true),
		act(material.CheckBox(th, &p.ref, "Reference facts in search").Layout, true),
		label("Auto-lock after", th.Fg), row(radios...))
	add(heading("Agents"))
	for len(p.agentBtns) < len(v.Agents) {
		p.agentBtns = append(p.agentBtns, widget.Clickable{})
	}
	for i := range v.Agents {
		text := "Connect"
		if strings.HasSuffix(v.Agents[i], ": connected") {
			text = "Reconnect"
		}
		add(row(layout.Flexed(1, material.Body1(th, v.Agents[i]).Layout),
			layout.Rigid(act(button(&p.agentBtns[i], text), true))))
	}
	add(heading("Newest memories"))
	for _, r := range v.Recent {
		l := material.Body2(th, r)
		l.MaxLines = 1
		add(l.Layout)
	}
	add(func(gtx layout.Context) layout.Dimensions {
		return layout.Inset{Top: unit.Dp(14)}.Layout(gtx, func(gtx layout.Context) layout.Dimensions {
			return layout.E.Layout(gtx, button(&p.quitBtn, "Quit"))
		})
	})
	paint.Fill(gtx.Ops, th.Bg)
	return layout.UniformInset(unit.Dp(14)).Layout(gtx, func(gtx layout.Context) layout.Dimensions {
		return material.List(th, &p.list).Layout(gtx, len(rows), func(gtx layout.Context, i int) layout.Dimensions {
			return rows[i](gtx)
		})
	})
}

// refreshEvery re-reads the state on a slow timer, so a window left in
// view across an auto-lock shows it; between ticks the panel runs nothing.
func (p *Panel) refreshEvery(every time.Duration) {
	go func() {
		for range time.Tick(every) {
			p.Refresh()
		}
	}()
}
