// Package capture turns what an agent host hands over - a memory file
// Claude Code wrote, or one conversation turn - into one-claim memories
// with an importance from fixed tiers, and stores them. The splitting and
// classifying is deterministic (rules, no model), so the same input always
// gives the same memories. Around it: the capture hook's input (a Claude
// Code event or a turn), which files are memory files and how they may be
// read (regular files inside the memory directories, UTF-8 text, bounded),
// finding Claude Code's memory files for import-claude, storing claims into
// a vault, and the pending list of files seen while the vault was locked.
// It knows nothing about the CLI, MCP or unlock credentials: callers open
// the vault and hand it over.
package capture

import (
	"regexp"
	"strings"
	"unicode"
)

// The importance tiers, part of the documented behaviour.
const (
	Decision  = 0.90 // decisions and consent
	Personal  = 0.80 // personal facts and preferences
	Machine   = 0.75 // the user's machine and configuration
	Statement = 0.55 // other substantive statements
	SmallTalk = 0.20 // greetings, thanks, filler: kept, ranked last
)

// Memory is one claim and its importance.
type Memory struct {
	Text       string  `json:"text"`
	Importance float64 `json:"importance"`
	Tier       string  `json:"tier"`
}

// TierName names an importance tier.
func TierName(imp float64) string {
	switch imp {
	case Decision:
		return "decision"
	case Personal:
		return "personal"
	case Machine:
		return "machine"
	case SmallTalk:
		return "small talk"
	}
	return "statement"
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

var (
	smallTalkRe = regexp.MustCompile(`^(hi|hello|hey|yo|hiya|thanks|thank you|thx|ty|cheers|great|cool|nice|awesome|perfect|lol|haha|good morning|good night|good evening|bye|goodbye|see you|how are you|you too|np|no problem|wow|hmm+|ah|oh)\b`)
	decisionRe  = regexp.MustCompile(`\b(decided|decides|decide|decision|agreed|agree to|approved|approve|we'll go with|we will go with|let's go with|let's use|we'll use|going with|settled on|chose|chosen|opted|from now on|always|never|must not|must|do not|don't ever|confirmed|consent|sign off|signed off)\b`)
	personalRe  = regexp.MustCompile(`\b(prefer|prefers|preferred|preference|favou?rite|likes?|loves?|hates?|dislikes?|birthday|allergic|my name|is called|lives in|live in|my wife|my husband|my partner|my son|my daughter|my kids?|my team|my boss|i am|i'm|i work|works at|speaks|pronouns)\b`)
	machineRe   = regexp.MustCompile(`(?i)(~/|/[a-z0-9_.-]+/|[a-z]:\\|\bport \d+|:\d{2,5}\b|\bv?\d+\.\d+(\.\d+)?\b|\b(linux|macos|mac os|windows|ubuntu|debian|fedora|arch|wsl|docker|kubernetes|k8s|python|node|npm|pnpm|yarn|golang|rust|cargo|java|git|github|ssh|zsh|bash|fish|homebrew|brew|apt|venv|conda|postgres|mysql|sqlite|redis|nginx|gpu|cpu|ram|ssd|laptop|desktop|server|vps|installed|config|configured|configuration|settings|env|environment|shell|terminal|editor|vim|neovim|emacs|vscode|ide|directory|repo|repository|branch)\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[\w-]+\.(json|toml|ya?ml|md|py|go|js|ts|sh|conf|ini|env|lock|txt)\b)`)
	consentRe   = regexp.MustCompile(`^(ok|okay|k|kk|yes|yep|yup|yeah|ya|sure|y|go ahead|go for it|do it|please do|sounds good|looks good|lgtm|ship it|send it|approved|approve|confirmed|confirm|agreed|agree|fine|alright|all right|absolutely|definitely|of course|correct|right|proceed|yes please)\b`)
)

// IsConsent says whether a reply is a bare consent: a short "OK", "yes,
// send it", "go ahead" and the like, with nothing substantive after it.
func IsConsent(reply string) bool {
	w := words(reply)
	if len(w) == 0 || len(w) > 5 {
		return false
	}
	return consentRe.MatchString(strings.Join(w, " "))
}

// isSmallTalk: a short greeting, thanks or filler, or no words at all.
func isSmallTalk(s string) bool {
	w := words(s)
	if len(w) == 0 {
		return true
	}
	return len(w) <= 6 && smallTalkRe.MatchString(strings.Join(w, " "))
}

// Classify gives a claim its importance tier. The rules are checked in
// order: small talk (a bare consent or thanks included), decisions,
// personal facts and preferences, the machine and its configuration,
// everything else.
func Classify(s string) float64 {
	low := strings.ToLower(s)
	switch {
	case isSmallTalk(s) || isThanks(s) || IsConsent(s):
		// A bare "yes" or "ok thanks" on its own records nothing: a
		// consent is a decision only with the question it answers
		// ([FromTurn]).
		return SmallTalk
	case decisionRe.MatchString(low):
		return Decision
	case personalRe.MatchString(low):
		return Personal
	case machineRe.MatchString(s):
		return Machine
	}
	return Statement
}

func classified(texts []string) []Memory {
	var out []Memory
	for _, t := range texts {
		imp := Classify(t)
		out = append(out, Memory{Text: t, Importance: imp, Tier: TierName(imp)})
	}
	return out
}
