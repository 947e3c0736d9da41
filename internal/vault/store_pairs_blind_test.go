package vault

import "testing"

// storePairsBlind are store pairs of the evaluation's shape written for
// #26 in session 12 (second helper) before any rule they judge was
// changed, with people, topics and words that neither the dev set nor
// the other tables use (kayaking, steam rooms, espresso, e-bikes,
// dumplings, jigsaw puzzles, linters, sticky notes, …). The restatements
// are said the ways people repeat a preference (another stance verb or
// degree, a fronted context, "would rather" with the act, a possessive
// with its complement, a gerund said as a verb, a reason added, "still");
// the changed minds turn the same words (an alternative swapped, a
// comparison reversed, "no longer", "used to", "has switched", "fed up
// with"); the other aspects are one holder's opinions on two things that
// share a word of their context or a modifier. Facts and duplicates keep
// the evaluation's shape.
//
// On main before any rule it judges (both bundled models): distinct 6/6,
// duplicate 4/4, update 9/10, restate 22/24, aspect 1/6 (v1; v2 0/6),
// lost 0. The rules it then led to ('doing' as a light verb, a travel
// act for its vehicle, a shared modifier only, a purpose said as a
// modifier) make it restate 24/24, update 10/10, aspect 4/6 (both), lost
// 0. A second batch, written after those rules and not used to choose
// them, scores restate 8/8, update 5/8, aspect 4/5 (both models), where
// main scores restate 3/8, update 6/8, aspect 0/5 (both), lost 0
// both; its "planning app" and "lost interest" misses then led to a fix
// in [reopens] and to [stoppedAt], so its update 7/8 is no longer blind. The known misses below say why; each is
// a conflict or a new record, never a fold.
var storePairsBlind = []storePair{
	// Restated opinions.
	{"restate", "Aiko prefers kayaking on calm lakes.", "On calm lakes, Aiko would rather go kayaking.", ""},
	{"restate", "Sven loves the steam room after work.", "After work, Sven really enjoys the steam room.", ""},
	{"restate", "Anouk thinks linters save review time.", "Anouk believes linters save review time.", ""},
	{"restate", "Bastian can't stand karaoke nights.", "Bastian hates karaoke nights.", ""},
	{"restate", "Lotte prefers wool socks in winter.", "In winter, Lotte would rather wear wool socks.", ""},
	{"restate", "Cosima likes her espresso short.", "Cosima prefers short espresso.", ""},
	{"restate", "Rania dislikes Makefiles for Python projects.", "For Python projects, Rania is not a fan of Makefiles.", ""},
	{"restate", "Darius is a big fan of chess puzzles.", "Darius loves chess puzzles.", ""},
	{"restate", "Elodie prefers e-bikes over cars for the commute.", "For the commute, Elodie would rather ride an e-bike than drive.", ""},
	{"restate", "Fenna finds Jenkins pipelines overcomplicated.", "Fenna thinks Jenkins pipelines are far too complicated.", ""},
	{"restate", "Tariq enjoys jigsaw puzzles on rainy days.", "On rainy days, Tariq likes doing jigsaw puzzles.", ""},
	{"restate", "Camille prefers dumplings with chili oil.", "Camille likes her dumplings with chili oil.", ""},
	{"restate", "Gustav thinks code comments should explain why.", "Gustav still thinks code comments should explain why.", ""},
	{"restate", "Noemi is not keen on rooftop bars.", "Noemi doesn't like rooftop bars.", ""},
	{"restate", "Idris prefers sticky notes over apps for reminders.", "For reminders, Idris favours sticky notes over apps.", ""},
	{"restate", "Gideon loves snowboarding in spring.", "Gideon is really into snowboarding in the spring.", ""},
	{"restate", "Aiko prefers decaf in the evening.", "In the evening, Aiko would rather drink decaf.", ""},
	{"restate", "Sven thinks whiteboards beat slides for planning.", "Sven feels that whiteboards beat slides for planning.", ""},
	{"restate", "Anouk likes houseplants in the office.", "Anouk enjoys having houseplants in the office.", ""},
	{"restate", "Bastian prefers lo-fi playlists for focus.", "Bastian prefers lo-fi playlists for focus because lyrics distract him.", ""},
	{"restate", "Cosima thinks night shifts are bad for the team.", "Cosima considers night shifts bad for the team.", ""},
	{"restate", "Rania prefers crosswords in the newspaper.", "Rania would rather do the newspaper crossword.", ""},
	{"restate", "Darius prefers camping by the sea.", "Darius would rather camp by the sea.", ""},
	{"restate", "Elodie hates waiting in queues.", "Elodie really dislikes waiting in queues.", ""},
	// Changed minds.
	{"update", "Aiko prefers kayaking on calm lakes.", "Aiko now prefers kayaking on rivers.", ""},
	{"update", "Sven loves the steam room after work.", "Sven no longer enjoys the steam room after work.", ""},
	{"update", "Cosima likes her espresso short.", "Cosima now likes her espresso long.", ""},
	{"update", "Elodie prefers e-bikes over cars for the commute.", "Elodie now prefers cars over e-bikes for the commute.", ""},
	{"update", "Noemi is not keen on rooftop bars.", "Noemi has come to love rooftop bars.", ""},
	{"update", "Idris prefers sticky notes for reminders.", "Idris has switched to a reminders app.", ""},
	{"update", "Camille prefers dumplings with chili oil.", "Camille now prefers dumplings with soy sauce.", ""},
	{"update", "Gideon loves snowboarding.", "Gideon used to love snowboarding.", ""},
	{"update", "Gustav thinks code comments should explain why.", "Gustav now thinks code comments are a waste of time.", ""},
	{"update", "Fenna likes mechanical keyboards.", "Fenna is fed up with mechanical keyboards.", ""},
	// One holder, another aspect sharing a word of its context.
	{"aspect", "Tariq prefers tea in the evening.", "Tariq prefers reading in the evening.",
		"the shared context word or modifier and the model put them on one aspect"},
	{"aspect", "Lotte likes cycling on weekends.", "Lotte likes brunch on weekends.",
		"the shared context word or modifier and the model put them on one aspect"},
	{"aspect", "Darius enjoys sea kayaking.", "Darius enjoys sea salt caramel.", ""},
	{"aspect", "Rania loves summer festivals.", "Rania loves summer salads.", ""},
	{"aspect", "Bastian prefers quiet cafés for working.", "Bastian prefers quiet hotels.", ""},
	{"aspect", "Anouk prefers green tea.", "Anouk prefers green walls in the kitchen.", ""},
	// A second batch, written after the rules this table led to and not
	// used to choose them: how far they reach.
	{"restate", "Yvette prefers trains over cars for weekend trips.", "For weekend trips, Yvette would rather take the train than drive.", ""},
	{"restate", "Zoltan prefers boats over planes to the islands.", "Zoltan would rather sail than fly to the islands.", ""},
	{"restate", "Bertil enjoys doing pottery on Saturdays.", "On Saturdays, Bertil loves pottery.", ""},
	{"restate", "Corinne likes canoe trips in autumn.", "In autumn, Corinne really enjoys canoe trips.", ""},
	{"restate", "Desmond hates doing paperwork.", "Desmond can't stand paperwork.", ""},
	{"restate", "Eira prefers croissants for breakfast.", "For breakfast, Eira would rather have croissants.", ""},
	{"restate", "Florin thinks Scrabble nights are great fun.", "Florin considers Scrabble nights great fun.", ""},
	{"restate", "Halvard prefers the motorbike over the car for short trips.", "For short trips, Halvard would rather ride the motorbike than drive.", ""},
	{"update", "Yvette prefers trains over cars for weekend trips.", "Yvette would now rather drive than take the train for weekend trips.", ""},
	{"update", "Bertil enjoys pottery.", "Bertil has lost interest in pottery.", ""},
	{"update", "Corinne prefers paper calendars for planning.", "Corinne has switched to a planning app.", ""},
	{"update", "Desmond prefers strong coffee.", "Desmond now prefers weak coffee.", ""},
	{"update", "Eira likes croissants for breakfast.", "Eira now likes porridge for breakfast.", ""},
	{"update", "Florin prefers wired headphones.", "Florin now prefers wireless headphones.", ""},
	{"update", "Halvard likes winter cycling.", "Halvard no longer likes winter cycling.", ""},
	{"update", "Zoltan prefers leather boots.", "Zoltan prefers leather sandals.",
		"boots and sandals share a modifier and the lexicon does not make them two of one kind: two opinions stand"},
	{"aspect", "Yvette likes autumn walks.", "Yvette likes autumn soups.", ""},
	{"aspect", "Bertil prefers wooden toys.", "Bertil prefers wooden floors.", ""},
	{"aspect", "Corinne enjoys jazz clubs.", "Corinne enjoys jazz brunches.", ""},
	{"aspect", "Desmond likes garden parties.", "Desmond likes garden tools.", ""},
	{"aspect", "Eira prefers tea at night.", "Eira prefers silence at night.",
		"another thing in the same context is read as a changed mind (the property tests hold that)"},
	// Facts of the evaluation's shape.
	{"distinct", "The kayak rental closes at 19:00.", "The kayak rental closes at 17:00.", ""},
	{"distinct", "Aiko is left-handed.", "Aiko is not left-handed.", ""},
	{"distinct", "Cosima coaches Tariq.", "Tariq coaches Cosima.", ""},
	{"distinct", "The steam room heater is 9 kW.", "The steam room heater is 6 kW.", ""},
	{"distinct", "The guest towels are in the hall closet.", "The beach towels are in the hall closet.", ""},
	{"distinct", "Noemi's flight lands in Lisbon.", "Noemi's flight departs from Lisbon.", ""},
	{"duplicate", "The steam room heater is 9 kW.", "the steam room heater is 9 kW", ""},
	{"duplicate", "Gustav's gym locker is number 14.", "Gustav's gym locker is number 14!", ""},
	{"duplicate", "The e-bike charger is in the shed.", "The ebike charger is in the shed.", ""},
	{"duplicate", "The camping stove needs a new gas can.", "Camping stove needs a new gas can.", ""},
}

// The blind session-12 pairs through a vault with each bundled model
// ([checkStorePairs]).
func TestStorePairsBlind(t *testing.T) { checkStorePairs(t, storePairsBlind) }
