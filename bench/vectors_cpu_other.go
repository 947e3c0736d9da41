//go:build !unix

package bench

import "time"

// processCPU is not measured here; reports show zero.
func processCPU() time.Duration { return 0 }
