//go:build linux

package bench

import (
	"os"
	"testing"
)

// TestPeakRSSMB: on Linux this process's peak resident set is read from
// /proc and is at least its current one (a test binary holds megabytes).
func TestPeakRSSMB(t *testing.T) {
	rss, _ := rssOf(os.Getpid())
	if p := PeakRSSMB(); p < 1 || p < rss {
		t.Fatalf("peak %.1f MB, resident %.1f MB", p, rss)
	}
}
