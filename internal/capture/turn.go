package capture

import (
	"regexp"
	"strings"
)

// Turn is the host-neutral form of one conversation turn: the assistant's
// last message and the user's reply to it. A host that keeps a transcript
// may say where the turn is in it (the transcript's absolute path and the
// id of the user's message there): while the vault is locked, that place,
// never the text, waits on the pending list for the next unlock.
type Turn struct {
	Assistant      string `json:"assistant"`
	User           string `json:"user"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	TurnID         string `json:"turn_id,omitempty"`
}

// FromTurn returns the memories of one turn. Both sides are cleaned first
// ([CleanText]). An empty reply gives none. A bare consent ("OK", "yes,
// send it") to a real proposal ("Want me to bump Go to 1.26.1 in go.mod?")
// is stored as one decision together with the whole question it answered;
// a bare consent to anything else ("Anything else?", "Done.") says nothing
// and stores nothing. A thanks ("ok thanks") is small talk, never consent.
// Otherwise each claim of the user's reply is kept at its tier, small talk
// included (at 0.20). What the assistant said is kept only as the question
// a consent answers: it is the model's own text, not something the user
// established.
func FromTurn(t Turn, max int) []Memory {
	if max <= 0 {
		max = MaxChars
	}
	user := strings.TrimSpace(CleanText(t.User))
	if user == "" {
		return nil
	}
	if IsConsent(user) && !isThanks(user) {
		q := lastQuestion(CleanText(t.Assistant))
		if !isProposal(q) {
			return nil
		}
		return []Memory{{Text: consentText(q, user, max), Importance: Decision, Tier: TierName(Decision)}}
	}
	return classified(SplitText(user, max))
}

// lastQuestion is the last whole sentence of msg that ends in a question
// mark, found with [Sentences] line by line, so that times, file names,
// versions, URLs and code spans inside it are kept.
func lastQuestion(msg string) string {
	q := ""
	for _, line := range strings.Split(msg, "\n") {
		line = bulletRe.ReplaceAllString(line, "")
		for _, s := range Sentences(line) {
			s = strings.Join(strings.Fields(emphasisRe.ReplaceAllString(s, "")), " ")
			if strings.HasSuffix(strings.TrimRight(s, "\"')]”’»"), "?") {
				q = s
			}
		}
	}
	return q
}

var (
	// proposalStartRe: a yes/no question, the only kind a bare "yes"
	// answers.
	proposalStartRe = regexp.MustCompile(`^(shall|should|want|wanna|do|does|did|would|will|can|could|may|might|is|are|am|ok|okay|alright|ready|proceed|good|sound|sounds|look|looks|need|happy|fine)\b`)
	// proposalRe: a proposal anywhere in the question ("I can also add
	// the tests - want me to?").
	proposalRe = regexp.MustCompile(`\b(want me to|would you like|like me to|shall i|should i|shall we|should we|ok if|okay if|ok to|okay to|is it ok|is that ok|is this ok|let me know if|sound good|sounds good|look good|looks good|do you want|happy for me to|go ahead|want that|want this|want it)\b`)
	// notProposalRe: questions a "yes" or an "ok" closes without agreeing
	// to anything.
	notProposalRe = regexp.MustCompile(`\b(anything else|anything more|something else|any other|any more|any further|any questions|questions|else i can|help you with|help with anything|make sense|that help|that's all|is that all|all set|are you there|still there)\b`)
)

// isProposal says whether q is a question a bare consent can agree to: a
// yes/no question or an offer to act, of at least three words.
func isProposal(q string) bool {
	w := words(q)
	if len(w) < 3 || !hasLetters(q) {
		return false
	}
	low := strings.Join(w, " ")
	if notProposalRe.MatchString(low) {
		return false
	}
	return proposalStartRe.MatchString(low) || proposalRe.MatchString(low)
}

var acknowledgeRe = regexp.MustCompile(`^(ok|okay|k|kk|cool|great|alright|all|right|fine|nice|perfect|awesome|noted|got|it|understood|good|thanks|thank|you|thx|ty|cheers|tysm|much|a|lot|so|very|many|appreciated|appreciate)$`)

// isThanks: a reply made only of thanks and acknowledgement ("ok thanks",
// "great, thank you!", "thx"), with at least one thanks in it. It answers
// nothing: it is small talk, not consent.
func isThanks(reply string) bool {
	w := words(reply)
	thanked := false
	for _, x := range w {
		if !acknowledgeRe.MatchString(x) {
			return false
		}
		if x == "thanks" || x == "thank" || x == "thx" || x == "ty" || x == "cheers" || x == "tysm" || x == "appreciated" {
			thanked = true
		}
	}
	return thanked
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
