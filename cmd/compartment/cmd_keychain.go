package main

import (
	"fmt"

	"github.com/compartment/compartment/internal/api"
	"github.com/compartment/compartment/internal/render"
	"github.com/compartment/compartment/internal/session"
)

// keychain is `unlock --keychain`: the macOS opt-in that keeps the master
// key in the login keychain until `lock`, reboots included.
func (c *UnlockCmd) keychain(app *App) error {
	if c.Once {
		if err := session.KeychainAvailable(); err != nil {
			return err
		}
		return fmt.Errorf("--once and --keychain do not go together: a keychain unlock lasts until 'compartment lock'")
	}
	if _, err := session.UnlockIntoKeychain(app.Vault, c.request(app)); err != nil {
		return err
	}
	if c.JSON {
		return render.JSON(app.Stdout, api.KeychainUnlocked{Keychain: true, Unlocked: true})
	}
	render.KeychainUnlocked(app.Stdout)
	return nil
}
