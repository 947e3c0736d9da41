package devsync

import (
	"errors"
	"os"
	"sync"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// Watch merges whenever a file in the sync folder changes, checking every
// interval, until [Syncer.Detach] or until the vault is locked or closed.
// report, if not nil, is told of each merge that did something or failed.
func (s *Syncer) Watch(interval time.Duration, report func(Report, error)) {
	s.mu.Lock()
	if s.stop != nil {
		s.mu.Unlock()
		return
	}
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	stop, done := s.stop, s.done
	s.mu.Unlock()
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		// No baseline: the first tick always merges. A baseline taken here
		// would already hold a change written between the caller's last
		// merge and this goroutine's start, and that change would wait
		// for the next one (TestServe caught it).
		last := ""
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			now := s.snapshot()
			if now == last {
				continue
			}
			rep, err := s.Merge()
			if errors.Is(err, vault.ErrLocked) {
				return
			}
			if err == nil {
				last = now
			}
			if report != nil && (err != nil || rep.Written+rep.Deleted+rep.Logged > 0) {
				report(rep, err)
			}
		}
	}()
}

func (s *Syncer) stopWatch() {
	s.mu.Lock()
	stop, done := s.stop, s.done
	s.mu.Unlock()
	if stop == nil {
		return
	}
	s.stopOnce.Do(func() { close(stop) })
	<-done
}

// snapshot is a cheap fingerprint of the folder: the names, sizes and
// modification times of the files a reader reads.
func (s *Syncer) snapshot() string {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return "unreachable"
	}
	var b []byte
	for _, e := range ents {
		if !ourName.MatchString(e.Name()) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		b = append(b, e.Name()...)
		b = append(b, byte(fi.Size()), byte(fi.Size()>>8), byte(fi.Size()>>16), byte(fi.Size()>>24))
		b = append(b, fi.ModTime().Format(time.RFC3339Nano)...)
	}
	return string(b)
}

// attached maps each vault to the Syncer attached to it, so a surface that
// only holds the vault (the MCP server's memory_status) can report sync.
var attached sync.Map // *vault.Vault -> *Syncer

// For returns the Syncer attached to v, or nil.
func For(v *vault.Vault) *Syncer {
	s, _ := attached.Load(v)
	if s == nil {
		return nil
	}
	return s.(*Syncer)
}
