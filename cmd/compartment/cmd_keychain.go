package main

import (
	"fmt"

	"github.com/compartment/compartment/internal/session"
)

// keychain is `unlock --keychain`: the macOS opt-in that keeps the master
// key in the login keychain until `lock`, reboots included.
func (c *UnlockCmd) keychain(app *App) error {
	if err := session.KeychainAvailable(); err != nil {
		return err
	}
	if c.Once {
		return fmt.Errorf("--once and --keychain do not go together: a keychain unlock lasts until 'compartment lock'")
	}
	unlock, err := app.currentUnlock(c.PassphraseStdin, true)
	if err != nil {
		return err
	}
	if err := session.KeychainUnlock(app.Vault, unlock); err != nil {
		return err
	}
	if c.JSON {
		return printJSON(app.Stdout, map[string]any{"unlocked": true, "keychain": true})
	}
	fmt.Fprintln(app.Stdout, "unlocked with the key in your login keychain: it stays unlocked across reboots until `compartment lock` (agents already running keep the key until they restart)")
	return nil
}
