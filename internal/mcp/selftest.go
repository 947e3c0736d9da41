package mcp

import (
	"encoding/json"
	"math"
	"os"

	"github.com/compartment/compartment/internal/selftest"
	"github.com/compartment/compartment/internal/vault"
)

func (s *Server) selftestTool() toolDef {
	return toolDef{
		name: "memory_selftest", title: "Memory self-test", description: selftestDesc,
		readOnly: true, idempotent: true, needsRead: true,
		in: inputObject(schema{}),
		out: outputObject(schema{
			"ok": boolean("every check passed"),
			"checks": list("", outputObject(schema{
				"name":   str(""),
				"ok":     boolean(""),
				"detail": str(""),
				"ms":     number("time the check took"),
			}, "name", "ok", "detail", "ms")),
			"questions": list("the fixed reference questions", outputObject(schema{
				"ask":  str("the question"),
				"want": str("the reference fact that answers it"),
				"rank": integer("its rank in the top 3; 0 when it was not there", 0, 3),
				"got":  str("the first result, when the fact was missed"),
				"ms":   number("search latency"),
			}, "ask", "want", "rank", "got", "ms")),
			"hits":             integer("questions whose fact came back in the top 3", 0, math.MaxInt32),
			"hit_at_3":         number("hits divided by the questions asked"),
			"search_p50_ms":    number("median latency of the self-test searches"),
			"search_max_ms":    number("slowest self-test search"),
			"nonsense_results": integer("results for a query about nothing in the vault (a relevance cut gives 0)", 0, math.MaxInt32),
		}, "ok", "checks", "questions", "hits", "hit_at_3", "search_p50_ms", "search_max_ms", "nonsense_results"),
		run: func(v *vault.Vault, raw json.RawMessage) (any, error) {
			if err := decode(raw, &struct{}{}); err != nil {
				return nil, err
			}
			exe, _ := os.Executable()
			rep, err := selftest.Run(v, selftest.Options{Executable: exe})
			if rep.Questions == nil {
				rep.Questions = []selftest.Answer{}
			}
			return rep, err
		},
	}
}
