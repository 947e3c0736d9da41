//go:build cgo

package main

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// autoLockChoices are the auto-lock settings the panel offers, as shown
// and as auto_lock_minutes values (0 is never).
var autoLockChoices = []struct {
	Label   string
	Minutes int
}{
	{"15 minutes", 15}, {"30 minutes", 30}, {"60 minutes", 60}, {"never", 0},
}

// Panel is the window's content and what it does. Every action runs the
// CLI on a goroutine of its own, so the window stays responsive while a
// wrong passphrase waits out the vault's delay.
type Panel struct {
	cli  *CLI
	app  fyne.App
	win  fyne.Window
	busy sync.WaitGroup // actions in flight (tests wait on it)

	// updating is set while the widgets are filled from a fresh state, so
	// their change callbacks do not write the same settings back.
	updating bool

	stateLabel *widget.Label
	countLabel *widget.Label
	errLabel   *widget.Label
	progress   *widget.ProgressBarInfinite

	passEntry    *widget.Entry
	keyfileEntry *widget.Entry
	unlockBtn    *widget.Button
	lockBtn      *widget.Button
	rekeyBtn     *widget.Button
	refreshBtn   *widget.Button
	quitBtn      *widget.Button
	unlockBox    *fyne.Container

	hookCheck *widget.Check
	refCheck  *widget.Check
	autoLock  *widget.Select

	agentLabels map[string]*widget.Label
	agentBtns   map[string]*widget.Button
	recent      []*widget.Label
}

// NewPanel builds the widgets; call Refresh (or RefreshSync) to fill them.
func NewPanel(a fyne.App, w fyne.Window, cli *CLI) *Panel {
	p := &Panel{cli: cli, app: a, win: w, agentLabels: map[string]*widget.Label{}, agentBtns: map[string]*widget.Button{}}
	p.stateLabel = widget.NewLabelWithStyle("…", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.countLabel = widget.NewLabel("")
	p.countLabel.Wrapping = fyne.TextWrapWord
	p.errLabel = widget.NewLabel("")
	p.errLabel.Wrapping = fyne.TextWrapWord
	p.errLabel.Importance = widget.DangerImportance
	p.errLabel.Hide()
	p.progress = widget.NewProgressBarInfinite()
	p.progress.Stop()
	p.progress.Hide()

	p.passEntry = widget.NewPasswordEntry()
	p.passEntry.SetPlaceHolder("Passphrase")
	p.passEntry.OnSubmitted = func(string) { p.Unlock() }
	p.keyfileEntry = widget.NewEntry()
	p.keyfileEntry.SetPlaceHolder("Keyfile (only with two-factor unlock)")
	p.unlockBtn = widget.NewButton("Unlock", p.Unlock)
	p.unlockBtn.Importance = widget.HighImportance
	p.lockBtn = widget.NewButton("Lock", p.Lock)
	p.rekeyBtn = widget.NewButton("Change passphrase", p.askRekey)
	p.refreshBtn = widget.NewButton("Refresh", p.Refresh)
	p.quitBtn = widget.NewButton("Quit", func() { a.Quit() })
	p.unlockBox = container.NewVBox(p.passEntry, p.keyfileEntry, p.unlockBtn)

	p.hookCheck = widget.NewCheck("Capture hook (Claude Code stores what it learns)", func(on bool) {
		if !p.updating {
			p.do(func() error { return p.cli.SetHook(on) })
		}
	})
	p.refCheck = widget.NewCheck("Reference facts in search", func(on bool) {
		if !p.updating {
			p.do(func() error { return p.cli.SetConfig("include_reference_in_search", fmt.Sprint(on)) })
		}
	})
	var labels []string
	for _, c := range autoLockChoices {
		labels = append(labels, c.Label)
	}
	p.autoLock = widget.NewSelect(labels, func(label string) {
		if p.updating {
			return
		}
		for _, c := range autoLockChoices {
			if c.Label == label {
				p.do(func() error { return p.cli.SetConfig("auto_lock_minutes", fmt.Sprint(c.Minutes)) })
			}
		}
	})

	agents := container.NewVBox()
	for _, ag := range panelAgents {
		l := widget.NewLabel(ag.Name)
		id := ag.ID
		b := widget.NewButton("Connect", func() { p.do(func() error { return p.cli.Connect(id) }) })
		p.agentLabels[id], p.agentBtns[id] = l, b
		agents.Add(container.NewBorder(nil, nil, nil, b, l))
	}
	recent := container.NewVBox()
	for i := 0; i < 5; i++ {
		l := widget.NewLabel("")
		l.Truncation = fyne.TextTruncateEllipsis
		p.recent = append(p.recent, l)
		recent.Add(l)
	}

	autoLockRow := container.NewBorder(nil, nil, widget.NewLabel("Auto-lock after"), nil, p.autoLock)
	content := container.NewVBox(
		p.stateLabel, p.countLabel, p.errLabel, p.progress, p.unlockBox,
		container.NewGridWithColumns(3, p.lockBtn, p.rekeyBtn, p.refreshBtn),
		widget.NewSeparator(),
		widget.NewLabelWithStyle("Settings", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		p.hookCheck, p.refCheck, autoLockRow,
		widget.NewSeparator(),
		widget.NewLabelWithStyle("Agents", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		agents,
		widget.NewSeparator(),
		widget.NewLabelWithStyle("Newest memories", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		recent,
		widget.NewSeparator(),
		container.NewBorder(nil, nil, nil, p.quitBtn),
	)
	w.SetContent(container.NewPadded(content))
	return p
}

// do runs an action off the UI goroutine with the progress bar showing,
// then reloads the state. An error stays in the window until the next
// action.
func (p *Panel) do(action func() error) {
	p.setBusy(true)
	p.busy.Add(1)
	go func() {
		defer p.busy.Done()
		err := action()
		st, lerr := p.cli.Load()
		if err == nil {
			err = lerr
		}
		fyne.Do(func() {
			p.setBusy(false)
			p.show(st, err)
			p.win.Content().Refresh()
		})
	}()
}

// Refresh reloads the state from the CLI.
func (p *Panel) Refresh() { p.do(func() error { return nil }) }

// Wait blocks until every action started so far has finished. With
// Fyne's test driver (--render, --self-check, the tests), fyne.Do runs its
// function at once, so the window then shows the result.
func (p *Panel) Wait() { p.busy.Wait() }

// Unlock unlocks with what is typed; the field is cleared right away so
// the passphrase stays in memory no longer than the call.
func (p *Panel) Unlock() {
	pass := p.passEntry.Text
	if pass == "" {
		p.showErr(fmt.Errorf("type your passphrase, then press Unlock"))
		return
	}
	p.passEntry.SetText("")
	p.cli.Keyfile = strings.TrimSpace(p.keyfileEntry.Text)
	p.do(func() error { return p.cli.Unlock(pass) })
}

// Lock locks the vault for every process.
func (p *Panel) Lock() { p.do(p.cli.Lock) }

func (p *Panel) askRekey() {
	old := widget.NewPasswordEntry()
	nw := widget.NewPasswordEntry()
	again := widget.NewPasswordEntry()
	items := []*widget.FormItem{
		widget.NewFormItem("Current passphrase", old),
		widget.NewFormItem("New passphrase", nw),
		widget.NewFormItem("New again", again),
	}
	dialog.ShowForm("Change passphrase", "Change", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		if nw.Text != again.Text {
			p.showErr(fmt.Errorf("the two new passphrases differ; nothing was changed, try again"))
			return
		}
		p.Rekey(old.Text, nw.Text)
	}, p.win)
}

// Rekey changes the passphrase.
func (p *Panel) Rekey(old, new string) {
	p.do(func() error { return p.cli.Rekey(old, new) })
}

func (p *Panel) setBusy(b bool) {
	for _, btn := range []*widget.Button{p.unlockBtn, p.lockBtn, p.rekeyBtn, p.refreshBtn} {
		if b {
			btn.Disable()
		} else {
			btn.Enable()
		}
	}
	if b {
		p.progress.Show()
		p.progress.Start()
	} else {
		p.progress.Stop()
		p.progress.Hide()
	}
}

func (p *Panel) showErr(err error) {
	if err == nil {
		p.errLabel.SetText("")
		p.errLabel.Hide()
		return
	}
	msg := err.Error()
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	p.errLabel.SetText(msg)
	p.errLabel.Show()
}

// show fills the widgets from st; err, if any, is shown above them.
func (p *Panel) show(st State, err error) {
	p.updating = true
	defer func() { p.updating = false }()
	p.showErr(friendly(err))
	switch {
	case st.Path == "":
		p.stateLabel.SetText("No vault")
	case st.Locked:
		p.stateLabel.SetText("Locked — " + st.Path)
	default:
		p.stateLabel.SetText("Open — " + st.Path)
	}
	if st.Locked || st.Path == "" {
		p.countLabel.SetText("Unlock to see your memories.")
		p.unlockBox.Show()
		p.lockBtn.Disable()
	} else {
		p.countLabel.SetText(fmt.Sprintf("%d memories, %d of them your own (the rest are reference facts and packs)", st.Live, st.Organic))
		if st.Live == 1 {
			p.countLabel.SetText(fmt.Sprintf("1 memory, %d of it your own", st.Organic))
		}
		p.unlockBox.Hide()
		p.lockBtn.Enable()
	}
	p.hookCheck.SetChecked(st.HookOn)
	p.refCheck.SetChecked(st.RefInSearch)
	for _, c := range autoLockChoices {
		if c.Minutes == st.AutoLockMin {
			p.autoLock.SetSelected(c.Label)
		}
	}
	for _, ag := range panelAgents {
		if st.Agents[ag.ID] {
			p.agentLabels[ag.ID].SetText(ag.Name + ": connected")
			p.agentBtns[ag.ID].SetText("Reconnect")
		} else {
			p.agentLabels[ag.ID].SetText(ag.Name + ": not connected")
			p.agentBtns[ag.ID].SetText("Connect")
		}
	}
	for i, l := range p.recent {
		switch {
		case i < len(st.Recent):
			l.SetText(inert(st.Recent[i]))
		case i == 0 && !st.Locked && st.Path != "":
			l.SetText("(no memories yet)")
		default:
			l.SetText("")
		}
	}
}

// friendly adds what to do to the CLI's messages people meet most.
func friendly(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if strings.Contains(msg, "wrong passphrase") {
		return fmt.Errorf("wrong passphrase (or keyfile); type it again and press Unlock")
	}
	return err
}

// inert makes a memory's text safe to show as one line: control
// characters become spaces.
func inert(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
}

// startTimer refreshes on a slow timer, so an auto-lock shows within a
// minute; between ticks the panel runs nothing.
func (p *Panel) startTimer(every time.Duration) {
	go func() {
		for range time.Tick(every) {
			fyne.Do(p.Refresh)
		}
	}()
}
