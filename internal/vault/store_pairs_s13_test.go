package vault

import "testing"

// storePairsS13 are store pairs of the evaluation's shape written for #26
// in session 13 with the rules for three restated forms: a compound of an
// act said as its verb with its object ([actsOnModifier]), one genre's
// works in one medium named otherwise ([oneMedium]) and one thing judged
// with two phrases of one judgement ([judgesAlike]); and the changed
// minds and other aspects those forms must never fold. The people and
// words are none of the other tables'. They were written with the rules,
// so they check the rules hold through a vault with real cosines, not
// how well the rules generalise.
var storePairsS13 = []storePair{
	{"restate", "Halvard likes doing lawn mowing on Saturdays.", "On Saturdays, Halvard prefers to mow the lawn.",
		"mow/mowing: the literal channel's inflections start at four letters, so a three-letter verb's gerund is another word"},
	{"restate", "Ebba enjoys bread baking.", "Ebba loves baking bread.", ""},
	{"restate", "Wen prefers bike repairs at home.", "Wen would rather repair bikes at home.", ""},
	{"restate", "Ebba enjoys French period dramas.", "Ebba is a big fan of French period series.", ""},
	{"restate", "Wen loves Japanese detective novels.", "Wen really likes Japanese detective fiction.", ""},
	{"restate", "Halvard enjoys Ethiopian food.", "Halvard is a fan of Ethiopian cuisine.", ""},
	{"restate", "Wen finds Gradle builds error-prone.", "Wen thinks Gradle builds are easy to mess up.", ""},
	{"restate", "Ebba finds the ticket machine clunky.", "Ebba thinks the ticket machine is hard to use.", ""},
	{"update", "Halvard likes doing lawn mowing on Saturdays.", "Halvard now prefers to mow the lawn on Sundays.",
		"mow/mowing, as above: no aspect shared, so both stand (stored, never folded)"},
	{"update", "Ebba enjoys bread baking.", "Ebba has stopped enjoying baking bread.", ""},
	{"update", "Ebba enjoys French period dramas.", "Ebba no longer likes French period series.", ""},
	{"update", "Wen finds Gradle builds error-prone.", "Wen no longer finds Gradle builds easy to mess up.", ""},
	{"update", "Ebba finds the ticket machine clunky.", "Ebba now thinks the ticket machine is easy to use.", ""},
	{"aspect", "Ebba enjoys bread baking.", "Ebba prefers trams to buses.", ""},
	{"aspect", "Wen finds Gradle builds error-prone.", "Wen enjoys Japanese detective novels.", ""},
}

// The session-13 pairs through a vault with each bundled model
// ([checkStorePairs]).
func TestStorePairsS13(t *testing.T) { checkStorePairs(t, storePairsS13) }
