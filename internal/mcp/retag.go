package mcp

import (
	"context"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// retagLoop runs the retag pass (vault.Retag) every retag_interval_hours
// while the server is in use; 0 turns it off, retag_prune makes it prune.
// Like the expiry sweep it checks every SweepEvery and skips a period in
// which no tool was called, so it never keeps an idle vault from
// auto-locking. The first pass comes one interval after the start.
func (s *Server) retagLoop(ctx context.Context) {
	unit := s.opts.RetagHour
	if unit <= 0 {
		unit = time.Hour
	}
	t := time.NewTicker(s.opts.SweepEvery)
	defer t.Stop()
	last, checked := time.Now(), time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		used := s.lastCall.After(checked)
		s.mu.Unlock()
		checked = time.Now()
		if !used || s.keeper.Locked() {
			continue
		}
		v, err := s.keeper.Vault()
		if err != nil {
			continue
		}
		set := v.Config().Settings
		if set.RetagIntervalHours <= 0 || time.Since(last) < time.Duration(set.RetagIntervalHours)*unit {
			continue
		}
		last = time.Now()
		s.retag(v, set.RetagPrune)
	}
}

func (s *Server) retag(v *vault.Vault, prune bool) {
	rep, err := v.Retag(vault.RetagOptions{Prune: prune})
	setMemoryLimit()
	if err != nil {
		s.log.Warn("retag pass failed", "err", err)
		return
	}
	if len(rep.Changes)+rep.Skipped > 0 {
		s.log.Info("retag pass", "memories", len(rep.Changes), "added", rep.Added, "removed", rep.Removed, "skipped", rep.Skipped)
	}
}
