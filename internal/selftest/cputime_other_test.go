//go:build !unix

package selftest

import "time"

// cpuTime is not measured here; the benchmark then reports 0.
func cpuTime() time.Duration { return 0 }
