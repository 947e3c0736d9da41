package vault

import (
	"fmt"
	"time"
)

// EnvNow names COMPARTMENT_NOW, a TEST-ONLY override of today's date for
// the expiry tests.
const EnvNow = "COMPARTMENT_NOW"

// ClockFrom is the clock [Options.Now] takes for a COMPARTMENT_NOW value
// (YYYY-MM-DD or RFC 3339): it runs on from that moment. "" is the real
// clock (nil).
func ClockFrom(s string) (func() time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t, err = time.ParseInLocation(DateLayout, s, time.Local)
		t = t.Add(12 * time.Hour) // midday: the same calendar day in any zone nearby
	}
	if err != nil {
		return nil, fmt.Errorf("%s=%q: use YYYY-MM-DD or an RFC 3339 time (test-only setting)", EnvNow, s)
	}
	offset := time.Until(t)
	return func() time.Time { return time.Now().Add(offset).UTC() }, nil
}
