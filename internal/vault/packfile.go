package vault

import (
	"crypto/ed25519"
	"fmt"
	"os"

	"github.com/compartment/compartment/vaultfmt"
)

// PackWritten is a pack [WritePackFile] signed and wrote.
type PackWritten struct {
	Path, Name, Version string
	Memories            int
	Signer              ed25519.PublicKey
}

// WritePackFile signs mems as a pack with the identity key in home
// ([LoadIdentity], made on first use) and writes it to out (default
// NAME.mpack). An empty pack is refused before the key is read or made.
func WritePackFile(mems []PackMemory, meta PackMeta, home, out string) (PackWritten, error) {
	if len(mems) == 0 {
		return PackWritten{}, ErrEmptyPack
	}
	key, err := LoadIdentity(home)
	if err != nil {
		return PackWritten{}, err
	}
	b, version, err := SignPack(mems, meta, key)
	if err != nil {
		return PackWritten{}, err
	}
	if out == "" {
		out = meta.Name + ".mpack"
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return PackWritten{}, fmt.Errorf("write pack: %w", err)
	}
	return PackWritten{Path: out, Name: meta.Name, Version: version, Memories: len(mems), Signer: key.Public().(ed25519.PublicKey)}, nil
}

// ReadPackFile reads the pack at path and checks its signature against
// the trust list beside the vault at vaultPath and the extra keys (64 hex
// digits each) given for this install. A file larger than any pack, or a
// pack no trusted key signed, is refused in one sentence that says what
// to do ([PackRefusal]).
func ReadPackFile(path, vaultPath string, extraKeys []string) (*vaultfmt.Pack, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if fi.Size() > vaultfmt.MaxPackBytes {
		return nil, fmt.Errorf("refused %s: %d bytes is more than any pack can be (%d); nothing was installed", path, fi.Size(), vaultfmt.MaxPackBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	trusted, err := LoadTrustedKeys(TrustedKeysPath(vaultPath))
	if err != nil {
		return nil, err
	}
	for _, s := range extraKeys {
		k, err := ParsePublicKey(s)
		if err != nil {
			return nil, err
		}
		trusted = append(trusted, k)
	}
	p, err := vaultfmt.DecodePack(b, trusted)
	if err != nil {
		return nil, PackRefusal(path, b, err)
	}
	return p, nil
}
