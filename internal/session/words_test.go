package session_test

import (
	"crypto/rand"
	"math/big"
	"strings"
)

// words make test memories that differ in content, not only in a number,
// so no near-duplicate check folds two of them into one.
var words = strings.Fields(`amber anvil apricot arch atlas badger banjo basil beacon birch
bison blossom bramble brook cactus canal canyon cedar cello chalk cinder clover cobalt comet
coral crane crater cricket cypress dahlia delta dune ember falcon fern fjord flint forge fossil
garnet geyser ginger glacier granite gravel harbor hazel heron hickory igloo indigo iris island
jasper juniper kelp kernel lagoon lantern larch lava lemon lichen lilac linen lotus lynx magnet
mango maple marble meadow mesa meteor mint mole moss nectar nickel nutmeg oak oasis obsidian
olive onyx orchid otter oyster paddle pebble pepper pine plum poppy prairie quartz quill quince
raven reef ridge river robin saffron sage salmon sapphire satchel sequoia shale sierra slate
sorrel sparrow spruce summit swan tamarind thistle thunder timber topaz tulip tundra turnip
umber valley velvet violet walnut willow wren yarrow zephyr zinc`)

func randInt(n int) int {
	v, _ := rand.Int(rand.Reader, big.NewInt(int64(n)))
	return int(v.Int64())
}

// randWord is one random word.
func randWord() string { return words[randInt(len(words))] }

// randPhrase is n random words.
func randPhrase(n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = randWord()
	}
	return strings.Join(out, " ")
}
