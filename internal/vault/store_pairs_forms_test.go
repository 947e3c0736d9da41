package vault

import "testing"

// storePairsForms are store pairs of the evaluation's shape written for
// #26 in session 12, before any rule they judge was changed, with people,
// topics and words that neither the dev set nor the other tables use
// (climbing, baking, browsers, trams, vinyl, yoga, film cameras, …). The
// restatements are said the ways people repeat a preference: another
// degree of the same stance (loves / really likes / is a huge fan of /
// adores / can't stand), a holder said as "I" or "the user", "still",
// "as I said", a hedge, a fronted or moved context, a modifier said as a
// phrase after its head, a reason or an example added. The changed minds
// use the same words turned: an alternative swapped, a comparison
// reversed, a stance negated, "used to", "has stopped", "anymore"; the
// other aspects are one holder's opinions on two things that share a
// word of their context. Facts and duplicates keep the evaluation's shape.
//
// Before the session-12 rules (both bundled models): distinct 6/6,
// duplicate 4/4, update 22/26, restate 15/34, aspect 1/4, lost 0; after
// them update 26/26, restate 34/34, aspect 1/4. A second batch, written
// once the rules were in and not used to choose them, scores restate
// 15/16 and update 11/12 (v1; v2 12/12), lost 0, where the rules before
// them score restate 4/16 and update 9/12; the v1 miss ("aisle seats" /
// "window seats" below same_topic) then led to [swapsModifier], so its
// 12/12 is no longer a blind measure. [sharesModifierOnly] then makes
// aspect 3/4. The known misses below say why.
var storePairsForms = []storePair{
	// Restated: degree and stance said otherwise.
	{"restate", "Lucas enjoys Icelandic folk music.", "Lucas is a huge fan of Icelandic folk music.", ""},
	{"restate", "Viktor loves long walks in the forest.", "Viktor really likes long walks in the forest.", ""},
	{"restate", "Ines adores vintage film cameras.", "Ines is crazy about vintage film cameras.", ""},
	{"restate", "Pablo hates crowded trains.", "Pablo can't stand crowded trains.", ""},
	{"restate", "Yara doesn't enjoy horror films.", "Yara is not into horror films.", ""},
	{"restate", "Kenji is keen on sourdough baking.", "Kenji loves sourdough baking.", ""},
	{"restate", "Greta is fond of handwritten letters.", "Greta really enjoys handwritten letters.", ""},
	{"restate", "Bruno strongly prefers Emacs for writing.", "Bruno prefers Emacs for writing.", ""},
	// Restated: the holder said another way, "still", "as I said", a hedge.
	{"restate", "I prefer dark mode in every editor.", "The user prefers dark mode in every editor.", ""},
	{"restate", "The user prefers tabs over spaces.", "I still prefer tabs over spaces.", ""},
	{"restate", "I love hiking in the Alps.", "I'm a big fan of hiking in the Alps.", ""},
	{"restate", "Rohan prefers window tables at restaurants.", "As I said, Rohan prefers window tables at restaurants.", ""},
	{"restate", "Paulina prefers paper books over e-readers.", "Paulina still prefers paper books to e-readers.", ""},
	{"restate", "Signe likes cold brew in summer.", "Signe generally likes cold brew in summer.", ""},
	{"restate", "Zainab prefers Firefox over Chrome for development.", "As mentioned before, Zainab prefers Firefox over Chrome for development.", ""},
	{"restate", "Arjun thinks pair programming helps new hires.", "Arjun honestly thinks pair programming helps new hires.", ""},
	// Restated: the context fronted or moved, a modifier said after its head.
	{"restate", "Tomasz prefers Zig over C for embedded tools.", "For embedded tools, Tomasz would rather use Zig than C.", ""},
	{"restate", "Mateo prefers buses over taxis in the city.", "In the city, Mateo would rather take the bus than a taxi.", ""},
	{"restate", "Otto prefers climbing indoors in winter.", "In winter, Otto would rather climb indoors.", ""},
	{"restate", "Wanjiru loves morning yoga.", "Wanjiru loves yoga in the morning.", ""},
	{"restate", "Esther prefers trams over buses downtown.", "Downtown, Esther would rather take the tram than the bus.", ""},
	{"restate", "Malik likes his steak medium-rare.", "Malik prefers medium-rare steak.", ""},
	{"restate", "Chidi likes his tea sweet.", "Chidi prefers sweet tea.", ""},
	{"restate", "Freya prefers weekend markets.", "Freya would rather shop at markets on the weekend.", ""},
	// Restated: another judgement of the same worth, a gerund, a negation said otherwise.
	{"restate", "Ayesha thinks SQLite is the right default for small apps.", "Ayesha considers SQLite the sensible default for small apps in most cases.", ""},
	{"restate", "Astrid finds the Gradle build overcomplicated.", "Astrid thinks the Gradle build is far too complicated.", ""},
	{"restate", "Leon thinks standing meetings are a waste of time.", "Leon considers standing meetings a waste of time.", ""},
	{"restate", "Greta likes bulk edits.", "Greta prefers bulk-editing product listings.", ""},
	{"restate", "Kenji dislikes calls during lunch.", "Kenji doesn't like taking calls during lunch.", ""},
	{"restate", "Yara dislikes loud restaurants.", "Yara is not a fan of loud restaurants.", ""},
	// Restated: a reason or an example added.
	{"restate", "Bruno prefers Emacs for writing.", "Bruno prefers Emacs for writing because it stays out of the way.", ""},
	{"restate", "Farah loves Thai food.", "Farah loves Thai food, especially green curry.", ""},
	{"restate", "Signe likes board games.", "Signe likes board games such as chess and go.", ""},
	{"restate", "Arjun prefers async updates over meetings.", "Arjun prefers async updates over meetings since they leave time to think.", ""},
	// Changed minds.
	{"update", "Tomasz prefers Zig over C for embedded tools.", "For embedded tools, Tomasz now prefers C over Zig.", ""},
	{"update", "Astrid prefers Gradle for Android builds.", "Astrid now finds Gradle too slow and prefers Bazel for Android builds.", ""},
	{"update", "Mateo loves sushi.", "Mateo has gone off sushi.", ""},
	{"update", "Wanjiru prefers morning yoga.", "Wanjiru now prefers evening yoga.", ""},
	{"update", "Greta prefers MongoDB for prototypes.", "Greta has switched to Postgres for prototypes.", ""},
	{"update", "Kenji likes open offices.", "Kenji can't stand open offices.", ""},
	{"update", "Ayesha thinks SQLite is a good fit for the mobile app.", "Ayesha now thinks SQLite is too limited for the mobile app.", ""},
	{"update", "Lucas prefers vinyl over streaming.", "Lucas now prefers streaming over vinyl.", ""},
	{"update", "Viktor enjoys winter swimming.", "Viktor no longer enjoys winter swimming.", ""},
	{"update", "Paulina prefers paper books.", "Paulina now prefers her e-reader over paper books.", ""},
	{"update", "Rohan prefers window tables.", "Rohan prefers booth tables.", ""},
	{"update", "Bruno prefers Emacs for writing.", "Bruno now prefers Obsidian over Emacs for writing.", ""},
	{"update", "Otto prefers climbing indoors.", "Otto now prefers climbing outdoors.", ""},
	{"update", "I prefer dark mode in every editor.", "I now prefer light mode in every editor.", ""},
	{"update", "Pablo likes crowded festivals.", "Pablo dislikes crowded festivals.", ""},
	{"update", "Ines thinks film cameras are worth the cost.", "Ines now thinks film cameras are not worth the cost.", ""},
	{"update", "Arjun prefers async updates over meetings.", "Arjun now prefers short meetings over async updates.", ""},
	{"update", "Leon is a big fan of standing meetings.", "Leon is no longer a fan of standing meetings.", ""},
	{"update", "Yara enjoys horror films.", "Yara has grown tired of horror films.", ""},
	{"update", "Malik likes his steak medium-rare.", "Malik now likes his steak well-done.", ""},
	{"update", "Esther prefers trams over buses downtown.", "Esther now prefers buses over trams downtown.", ""},
	{"update", "Signe likes cold brew.", "Signe used to like cold brew.", ""},
	{"update", "Chidi likes his tea sweet.", "Chidi still likes tea, but without sugar.", ""},
	{"update", "The user prefers tabs over spaces.", "I still prefer spaces over tabs.", ""},
	{"update", "Farah loves Thai food.", "Farah is not into Thai food.", ""},
	{"update", "Zainab really likes Firefox.", "Zainab has stopped liking Firefox.", ""},
	// One holder, another aspect sharing a word of its context.
	{"aspect", "Ingrid likes morning runs.", "Ingrid likes the morning paper.", ""},
	{"aspect", "Otto prefers climbing indoors in winter.", "Otto prefers soup in winter.",
		"the shared context word 'winter' and the model put them on one aspect"},
	{"aspect", "Freya prefers weekend markets.", "Freya prefers quiet weekend mornings.", ""},
	{"aspect", "Kenji is keen on sourdough baking.", "Kenji is keen on sourdough pizza.", ""},
	// A second batch, written after the session-12 rules and not used to
	// choose them: how far the rules reach past the pairs above.
	{"restate", "Dagny loves cross-country skiing.", "Dagny is really into cross-country skiing.", ""},
	{"restate", "Ravi prefers Vim over Nano for quick edits.", "For quick edits, Ravi would rather use Vim than Nano.", ""},
	{"restate", "Selin thinks daily standups are pointless.", "Selin still thinks daily standups are pointless.", ""},
	{"restate", "Kwabena hates early flights.", "Kwabena can't stand flying early.", ""},
	{"restate", "Marta likes her bread toasted.", "Marta prefers toasted bread.", ""},
	{"restate", "Thiago enjoys jazz on vinyl.", "As I mentioned, Thiago enjoys jazz on vinyl.", ""},
	{"restate", "Nour prefers evening classes.", "Nour would rather take classes in the evening.", ""},
	{"restate", "Emre finds Maven overcomplicated.", "Emre thinks Maven is way too complicated.", ""},
	{"restate", "Ilse is a fan of long-distance trains.", "Ilse loves long-distance trains because they are relaxing.", ""},
	{"restate", "Joon dislikes open-plan offices.", "Joon is not keen on open-plan offices.", ""},
	{"restate", "I prefer aisle seats on long flights.", "On long flights, I'd rather have an aisle seat.", ""},
	{"restate", "Dagny thinks Postgres is the best default database.", "Dagny considers Postgres the right default database for most teams.", ""},
	{"restate", "Ravi likes spicy food, especially Sichuan dishes.", "Ravi loves spicy food.", ""},
	{"restate", "Selin prefers tea to coffee in the afternoon.", "In the afternoon, Selin would rather drink tea than coffee.", ""},
	{"restate", "Marta likes batch cooking.", "Marta prefers batch-cooking meals for the week.",
		"the gerund's object is followed by a context ('for the week') the noun does not have"},
	{"restate", "Thiago doesn't like crowded beaches.", "Thiago dislikes crowded beaches.", ""},
	{"update", "Dagny loves cross-country skiing.", "Dagny has stopped enjoying cross-country skiing.", ""},
	{"update", "Ravi prefers Vim over Nano.", "Ravi now prefers Nano over Vim.", ""},
	{"update", "Selin thinks daily standups are pointless.", "Selin now thinks daily standups are useful.", ""},
	{"update", "Marta likes her bread toasted.", "Marta now likes her bread fresh.", ""},
	{"update", "Nour prefers evening classes.", "Nour now prefers morning classes.", ""},
	{"update", "Ilse is a fan of long-distance trains.", "Ilse used to be a fan of long-distance trains.", ""},
	{"update", "Joon dislikes open-plan offices.", "Joon has come to like open-plan offices.", ""},
	{"update", "I prefer aisle seats.", "I'd rather have window seats.", ""},
	{"update", "Thiago enjoys jazz on vinyl.", "Thiago is no longer into jazz on vinyl.", ""},
	{"update", "Emre prefers Maven for Java builds.", "Emre has switched to Gradle for Java builds.", ""},
	{"update", "Kwabena likes cold showers.", "Kwabena can't stand cold showers anymore.", ""},
	{"update", "Selin prefers tea to coffee.", "Selin prefers coffee to tea.", ""},
	// Facts of the evaluation's shape.
	{"distinct", "The boiler service is due in March.", "The boiler service is due in May.", ""},
	{"distinct", "Chidi is vegetarian.", "Chidi is not vegetarian.", ""},
	{"distinct", "Greta manages Otto.", "Otto manages Greta.", ""},
	{"distinct", "The studio rent is 950 euros.", "The studio rent is 590 euros.", ""},
	{"distinct", "The still camera is in the attic.", "The video camera is in the attic.", ""},
	{"distinct", "As agreed, the invoice goes to Farah.", "As agreed, the invoice goes to Bruno.", ""},
	{"duplicate", "The boiler service is due in March.", "The boiler service is due in March", ""},
	{"duplicate", "Greta's locker code is 2290.", "greta's locker code is 2290.", ""},
	{"duplicate", "The Raspberry Pi runs Home Assistant.", "The Raspberry Pi runs Home Assistant!", ""},
	{"duplicate", "A spare key is under the blue pot.", "The spare key is under the blue pot.", ""},
}

// The session-12 pairs through a vault with each bundled model
// ([checkStorePairs]).
func TestStorePairsForms(t *testing.T) { checkStorePairs(t, storePairsForms) }
