package devsync

import (
	"bytes"
	"time"
)

// Clock is a hybrid logical clock (FORMAT.md 10.3): wall milliseconds and
// a counter for events within one millisecond, so a device's operations
// are ordered after everything it had seen, whatever its wall clock says.
type Clock struct {
	Wall    uint64 `json:"wall"`
	Logical uint32 `json:"logical"`
}

// Less orders clocks by wall, then logical.
func (c Clock) Less(d Clock) bool {
	return c.Wall < d.Wall || (c.Wall == d.Wall && c.Logical < d.Logical)
}

// Max returns the later clock.
func (c Clock) Max(d Clock) Clock {
	if c.Less(d) {
		return d
	}
	return c
}

// Tick returns the clock of a new local event after c, at wall time now.
func (c Clock) Tick(now time.Time) Clock {
	ms := uint64(now.UnixMilli())
	if ms > c.Wall {
		return Clock{Wall: ms}
	}
	return Clock{Wall: c.Wall, Logical: c.Logical + 1}
}

// Time is the clock's wall time.
func (c Clock) Time() time.Time { return time.UnixMilli(int64(c.Wall)).UTC() }

// stamp is a clock made unique by its device: the total order every device
// computes alike.
type stamp struct {
	Clock
	device [16]byte
}

func (s stamp) less(t stamp) bool {
	if s.Clock != t.Clock {
		return s.Clock.Less(t.Clock)
	}
	return bytes.Compare(s.device[:], t.device[:]) < 0
}
