//go:build failpoints

package vaultfmt

import (
	"sync"
	"sync/atomic"
)

var (
	failMu     sync.Mutex
	failErrs   = map[string]error{}
	failActive atomic.Int32
)

// SetFailpoint makes the named failpoint return err; a nil err clears it.
// It is meant for tests, of this package and of its callers.
func SetFailpoint(name string, err error) {
	failMu.Lock()
	defer failMu.Unlock()
	if err == nil {
		delete(failErrs, name)
	} else {
		failErrs[name] = err
	}
	failActive.Store(int32(len(failErrs)))
}

// failpoint returns the error set for name, or nil; it costs one atomic
// load when no failpoint is set.
func failpoint(name string) error {
	if failActive.Load() == 0 {
		return nil
	}
	failMu.Lock()
	defer failMu.Unlock()
	return failErrs[name]
}
