package capture

import (
	"strings"
)

// Turn is the host-neutral form of one conversation turn: the assistant's
// last message and the user's reply to it.
type Turn struct {
	Assistant string `json:"assistant"`
	User      string `json:"user"`
}

// FromTurn returns the memories of one turn. An empty turn gives none. A
// bare consent ("OK", "yes, send it") is stored as one decision together
// with the question it answered. Otherwise each claim of the user's reply
// is kept at its tier, small talk included (at 0.20). What the assistant
// said is kept only as the question a consent answers: it is the model's
// own text, not something the user established.
func FromTurn(t Turn, max int) []Memory {
	if max <= 0 {
		max = MaxChars
	}
	user := strings.TrimSpace(t.User)
	if user == "" {
		return nil
	}
	if IsConsent(user) {
		if q := lastQuestion(t.Assistant); q != "" {
			return []Memory{{Text: consentText(q, user, max), Importance: Decision, Tier: TierName(Decision)}}
		}
	}
	return classified(SplitText(user, max))
}

// lastQuestion is the last sentence of msg that ends in a question mark.
func lastQuestion(msg string) string {
	msg = strings.Join(strings.Fields(emphasisRe.ReplaceAllString(msg, "")), " ")
	end := strings.LastIndex(msg, "?")
	if end < 0 {
		return ""
	}
	start := strings.LastIndexAny(msg[:end], ".!?:\n")
	return strings.TrimSpace(msg[start+1 : end+1])
}

// consentText is the decision: what was asked, and the answer.
func consentText(question, reply string, max int) string {
	reply = strings.Join(strings.Fields(reply), " ")
	text := func(q string) string { return `The user agreed to "` + q + `" (answered "` + reply + `")` }
	q := []rune(question)
	for len([]rune(text(string(q)))) > max && len(q) > 1 {
		q = q[:len(q)-1]
		for len(q) > 0 && q[len(q)-1] == ' ' {
			q = q[:len(q)-1]
		}
		if len([]rune(text(string(q)+"…"))) <= max {
			return text(string(q) + "…")
		}
	}
	return text(string(q))
}
