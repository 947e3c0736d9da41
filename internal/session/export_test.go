package session

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
)

// CredentialPathIn is where the credential of the vault at vaultPath
// lives in sessionDir, computed without reading this process's
// environment, so end-to-end tests can run in parallel.
func CredentialPathIn(sessionDir, vaultPath string) string {
	abs, _ := filepath.Abs(vaultPath)
	if canon, err := filepath.EvalSymlinks(abs); err == nil {
		abs = canon
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(sessionDir, "v-"+hex.EncodeToString(sum[:16])+".cred")
}

// held reports whether the keeper holds an open vault.
func (k *Keeper) held() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.v != nil
}
