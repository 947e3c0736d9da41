package api

import "github.com/compartment/compartment/internal/session"

// Unlocked is `unlock --json`: the state of the unlock session after it.
type Unlocked struct {
	Unlocked        bool    `json:"unlocked"`
	Already         bool    `json:"already"` // an unlocked session was there and was kept
	Once            bool    `json:"once"`    // only the next process to open the vault gets in
	AutoLockSeconds float64 `json:"auto_lock_seconds"`
	Credential      string  `json:"credential"` // the credential file
}

// UnlockedOf is the shape of an unlock's result.
func UnlockedOf(u session.Unlocked) Unlocked {
	return Unlocked{Unlocked: u.State.Unlocked, Already: u.Already, Once: u.State.Once,
		AutoLockSeconds: u.State.AutoLock.Seconds(), Credential: u.Credential}
}

// TwoFactorStatus is `2fa status --json`.
type TwoFactorStatus struct {
	Enabled        bool   `json:"enabled"`
	Keyfile        string `json:"keyfile,omitempty"` // where it is expected, when remembered
	KeyfilePresent bool   `json:"keyfile_present"`
}

// TwoFactorEnabled is `2fa enable --json`.
type TwoFactorEnabled struct {
	Enabled   bool   `json:"enabled"`
	Keyfile   string `json:"keyfile"`
	Generated bool   `json:"generated"` // a new keyfile was made there
}

// TwoFactorDisabled is `2fa disable --json`.
type TwoFactorDisabled struct {
	Enabled bool `json:"enabled"` // always false
}
