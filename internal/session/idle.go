package session

import (
	"os"
	"strconv"
	"time"

	"github.com/compartment/compartment/internal/vault"
)

// The idle clock is the modification time of <stem>.used, shared by every
// process of the user: each use moves it forward (at most every
// touchEvery), and whoever finds it older than the timeout locks the vault.

// touchEvery bounds how often one use rewrites the shared timestamp; the
// clock is then at most this stale, far below any real timeout.
const touchEvery = time.Second

// autoLock returns the idle timeout (0 = never): the test hook, else the
// vault's auto_lock_minutes, read again only when the config file changed.
func (s *Session) autoLock() time.Duration {
	if v := os.Getenv(EnvAutoLockSeconds); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
			return time.Duration(f * float64(time.Second))
		}
	}
	fi, err := os.Stat(vault.ConfigPath(s.given))
	if err != nil {
		fi = nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfgLoaded && ((fi == nil && s.cfgStamp == nil) || (fi != nil && s.cfgStamp != nil && sameFile(fi, s.cfgStamp))) {
		return s.timeout
	}
	minutes := vault.DefaultSettings().AutoLockMinutes
	if cfg, err := vault.LoadConfig(s.given); err == nil {
		minutes = cfg.Settings.AutoLockMinutes
	}
	s.timeout, s.cfgStamp, s.cfgLoaded = time.Duration(minutes)*time.Minute, fi, true
	return s.timeout
}

// lastUse is the latest of the shared timestamp and the credential's own
// time (cred may be nil); the zero time when neither exists.
func (s *Session) lastUse(cred os.FileInfo) time.Time {
	var last time.Time
	if fi, err := os.Stat(s.usedPath()); err == nil {
		last = fi.ModTime()
	}
	if cred != nil && cred.ModTime().After(last) {
		last = cred.ModTime()
	}
	return last
}

// expired reports whether the vault has been idle past the timeout. With
// no record of any use it is not: the caller is about to make one.
func (s *Session) expired(now time.Time, cred os.FileInfo) bool {
	timeout := s.autoLock()
	if timeout <= 0 {
		return false
	}
	last := s.lastUse(cred)
	return !last.IsZero() && now.Sub(last) > timeout
}

// Expired reports whether the vault has been idle past its auto-lock
// timeout, by every process together. It changes nothing.
func (s *Session) Expired() bool { return s.expired(time.Now(), nil) }

// Touch records a use now.
func (s *Session) Touch() { s.touch(time.Now()) }

func (s *Session) touch(now time.Time) {
	fi, err := os.Stat(s.usedPath())
	if err != nil {
		fi = nil
	}
	s.touchSeen(now, fi, s.autoLock())
}

// touchSeen moves the idle clock to now unless it was moved very recently;
// fi is the clock file as just seen (nil if missing).
func (s *Session) touchSeen(now time.Time, fi os.FileInfo, timeout time.Duration) {
	path := s.usedPath()
	if fi != nil {
		throttle := touchEvery
		if timeout > 0 {
			throttle = min(throttle, timeout/10)
		}
		if d := now.Sub(fi.ModTime()); d >= 0 && d < throttle {
			return
		}
		os.Chtimes(path, now, now)
		return
	}
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600); err == nil {
		f.Close()
		os.Chtimes(path, now, now)
	}
}

// Use is one use by a process that holds the key: it reports whether the
// vault had been idle past the timeout (the caller must then lock it), and
// otherwise moves the idle clock. Two stat calls in the common case.
func (s *Session) Use() (expired bool) {
	now, timeout := time.Now(), s.autoLock()
	fi, err := os.Stat(s.usedPath())
	if err != nil {
		fi = nil
	}
	if timeout > 0 && fi != nil && now.Sub(fi.ModTime()) > timeout {
		return true
	}
	s.touchSeen(now, fi, timeout)
	return false
}
