package fts

import "strings"

// Irregular forms: a question asks "what did I buy", the memory says
// "bought"; "how much did I spend" meets "spent", "where did I go" meets
// "went". Such forms share no ending with their base, so the inflection
// rule (see [inflected]) cannot pair them. The common English irregular
// verbs and nouns are listed here, one word per line, every form given:
// each form stands in for the others at VariantWeight, like any variant.
//
// Left out on purpose: the auxiliaries (be, have, do: "did I buy" must
// not match every "done"), and verbs whose forms are everyday words of
// another meaning (rise/rose, lie/lay, bite/bit, bind/bound, tear/tears,
// leaf/leaves).
var irregularForms = groupForms(`
arise arises arising arose arisen
awake awakes awaking awoke awoken
beat beats beating beaten
become becomes becoming became
begin begins beginning began begun
bend bends bending bent
bleed bleeds bleeding bled
blow blows blowing blew blown
break breaks breaking broke broken
breed breeds breeding bred
bring brings bringing brought
build builds building built
burn burns burning burnt
buy buys buying bought
catch catches catching caught
choose chooses choosing chose chosen
come comes coming came
deal deals dealing dealt
dig digs digging dug
draw draws drawing drew drawn
dream dreams dreaming dreamt
drink drinks drinking drank drunk
drive drives driving drove driven
eat eats eating ate eaten
fall falls falling fell fallen
feed feeds feeding fed
feel feels feeling felt
fight fights fighting fought
find finds finding found
fly flies flying flew flown
forget forgets forgetting forgot forgotten
forgive forgives forgiving forgave forgiven
freeze freezes freezing froze frozen
get gets getting got gotten
give gives giving gave given
go goes going went gone
grow grows growing grew grown
hang hangs hanging hung
hear hears hearing heard
hide hides hiding hid hidden
hold holds holding held
keep keeps keeping kept
know knows knowing knew known
lay lays laying laid
lead leads leading led
learn learns learning learnt
leave leaves leaving left
lend lends lending lent
light lights lighting lit
lose loses losing lost
make makes making made
mean means meaning meant
meet meets meeting met
pay pays paying paid
ride rides riding rode ridden
ring rings ringing rang rung
run runs running ran
say says saying said
see sees seeing saw seen
seek seeks seeking sought
sell sells selling sold
send sends sending sent
shake shakes shaking shook shaken
shoot shoots shooting shot
show shows showing showed shown
shrink shrinks shrinking shrank shrunk
sing sings singing sang sung
sink sinks sinking sank sunk
sit sits sitting sat
sleep sleeps sleeping slept
slide slides sliding slid
speak speaks speaking spoke spoken
spend spends spending spent
spin spins spinning spun
stand stands standing stood
steal steals stealing stole stolen
stick sticks sticking stuck
strike strikes striking struck
swear swears swearing swore sworn
sweep sweeps sweeping swept
swim swims swimming swam swum
swing swings swinging swung
take takes taking took taken
teach teaches teaching taught
tell tells telling told
think thinks thinking thought
throw throws throwing threw thrown
understand understands understanding understood
wake wakes waking woke woken
wear wears wearing wore worn
win wins winning won
write writes writing wrote written
child children
person people
man men
woman women
foot feet
tooth teeth
mouse mice
wife wives
knife knives
life lives
shelf shelves
half halves
`)

// groupForms maps every word of the table to the other words of its line.
func groupForms(table string) map[string][]string {
	out := map[string][]string{}
	for _, line := range strings.Split(table, "\n") {
		forms := strings.Fields(line)
		for i, f := range forms {
			if _, dup := out[f]; dup {
				panic("fts: irregular form listed twice: " + f)
			}
			others := make([]string, 0, len(forms)-1)
			others = append(others, forms[:i]...)
			out[f] = append(others, forms[i+1:]...)
		}
	}
	return out
}

// irregularVariants returns the vocabulary terms that are irregular forms
// of q's word.
func (x *Index) irregularVariants(q string) []Expansion {
	var out []Expansion
	for _, f := range irregularForms[q] {
		if id, ok := x.lookup(f); ok {
			out = append(out, Expansion{Term: f, Weight: VariantWeight, id: id})
		}
	}
	return out
}
