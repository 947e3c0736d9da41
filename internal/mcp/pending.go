package mcp

import (
	"github.com/compartment/compartment/internal/capture"
	"github.com/compartment/compartment/internal/integrate"
	"github.com/compartment/compartment/internal/vault"
)

// importPending imports the memory files the capture hook listed while the
// vault was locked (capture.ImportPending). The server's vault is open as
// its own caller only, so files another caller's hook listed stay for an
// unlock that can store them as that caller (`compartment unlock`).
func (s *Server) importPending() {
	res, err := capture.ImportPending(s.opts.VaultPath, integrate.HostEnv(), func(caller string) (*vault.Vault, func(), error) {
		if caller != s.opts.Caller {
			return nil, nil, capture.ErrCallerUnavailable
		}
		v, err := s.keeper.Vault()
		return v, func() {}, err
	})
	if err != nil {
		s.log.Warn("import of the memory files captured while locked", "err", err)
	}
	if res.Files > 0 {
		s.log.Info("imported memory files captured while locked", "files", res.Files, "stored", res.Stored, "left", res.Left)
	}
}
