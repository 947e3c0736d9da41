package mcp

import (
	"encoding/json"
	"testing"
	"time"
)

func TestParseAsOf(t *testing.T) {
	noon := time.Date(2026, 8, 1, 12, 0, 0, 0, time.Local).Unix()
	for _, tc := range []struct {
		in, want string
		bad      bool
	}{
		{in: ``, want: ``},
		{in: `null`, want: ``},
		{in: `""`, want: ``},
		{in: `"2026-08-01"`, want: `2026-08-01`},
		{in: jsonNum(noon), want: `2026-08-01`},
		{in: `"` + jsonNum(noon) + `"`, want: `2026-08-01`},
		{in: jsonNum(noon) + `.5`, want: `2026-08-01`},
		{in: `"2026-13-01"`, bad: true},
		{in: `"next tuesday"`, bad: true},
		{in: `-5`, bad: true},
		{in: `1e300`, bad: true},
		{in: `true`, bad: true},
	} {
		got, err := parseAsOf(json.RawMessage(tc.in))
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("parseAsOf(%s) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func jsonNum(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
