package session

import (
	"testing"
)

// BenchmarkKeeperVault is the per-call cost of an unlocked keeper: the
// lock stamp, credential and idle-clock checks before handing the vault
// out (the MCP server pays it on every tool call).
func BenchmarkKeeperVault(b *testing.B) {
	dir := b.TempDir()
	b.Setenv(EnvBootIDFile, writeBootID(b, dir))
	b.Setenv(EnvBootSecretDir, dir+"/boot")
	b.Setenv(EnvSessionDir, dir+"/sessions")
	path, open := keeperVaultB(b, dir)
	k := NewKeeper(path, open)
	defer k.Close()
	if err := k.Unlock([]byte(keeperPass), nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := k.Vault(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMasterKey is what a CLI command pays to pick up the session:
// read the boot id, the boot secret (under its flock), the vault header
// and the credential, derive and open.
func BenchmarkMasterKey(b *testing.B) {
	dir := b.TempDir()
	b.Setenv(EnvBootIDFile, writeBootID(b, dir))
	b.Setenv(EnvBootSecretDir, dir+"/boot")
	b.Setenv(EnvSessionDir, dir+"/sessions")
	path, open := keeperVaultB(b, dir)
	k := NewKeeper(path, open)
	if err := k.Unlock([]byte(keeperPass), nil); err != nil {
		b.Fatal(err)
	}
	k.Close()
	s, err := For(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		key, _, err := s.MasterKey()
		if err != nil {
			b.Fatal(err)
		}
		wipe(key)
	}
}
