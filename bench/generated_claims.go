package bench

import (
	"fmt"
	"math/rand/v2"
)

// Claim is one generated memory: a single short claim of the kind an agent
// stores, with the question a person would ask to get it back.
type Claim struct {
	Text  string   `json:"text"`
	Tags  []string `json:"tags,omitempty"`
	Kind  string   `json:"kind,omitempty"`
	Query string   `json:"-"`
}

// The vocabulary of the generated claims. Nothing here comes from an
// evaluation set: names, places and things are ordinary English words
// combined by templates, so records share common words and differ in the
// specific ones (a name, a number, a host), as a real vault does.
var (
	claimPeople = []string{"Priya", "Max", "Ana", "Tomas", "Lena", "Omar", "Yuki", "Sam", "Ingrid", "Kofi",
		"Marta", "Dev", "Chloe", "Rafael", "Noor", "Jonas", "Aiko", "Pedro", "Zara", "Henrik"}
	claimSurnames = []string{"Okafor", "Lindqvist", "Moreau", "Tanaka", "Silva", "Novak", "Haddad", "Kowalski",
		"Brennan", "Osei", "Varga", "Iyer", "Castillo", "Fischer", "Nakamura", "Ruiz", "Dimitrov", "Adeyemi"}
	claimProjects = []string{"northwind", "bluebird", "atlas", "meridian", "juniper", "falcon", "orchid",
		"granite", "lighthouse", "saffron", "tundra", "willow", "cobalt", "ember", "quartz", "harbour"}
	claimServices = []string{"billing service", "staging database", "VPN gateway", "search cluster", "mail relay",
		"metrics store", "auth proxy", "build cache", "object store", "job queue", "web frontend", "DNS resolver"}
	claimCities = []string{"Lisbon", "Oslo", "Nairobi", "Osaka", "Porto", "Tallinn", "Montreal", "Lyon",
		"Bergen", "Kraków", "Valencia", "Dublin", "Seoul", "Quito", "Hobart", "Ghent"}
	claimFoods  = []string{"peanuts", "shellfish", "gluten", "lactose", "sesame", "kiwi", "soy", "mustard"}
	claimDrinks = []string{"green tea", "espresso", "oat latte", "sparkling water", "rooibos", "flat white"}
	claimTools  = []string{"ripgrep", "tmux", "neovim", "podman", "restic", "terraform", "jq", "htop",
		"syncthing", "borg", "caddy", "sqlite"}
	claimTasks = []string{"searching logs", "backups", "editing configs", "container builds", "provisioning",
		"reading JSON", "watching load", "file sync"}
	claimMonths = []string{"January", "February", "March", "April", "May", "June", "July", "August",
		"September", "October", "November", "December"}
	claimPlaces = []string{"office", "storage room", "bike shed", "server room", "garage", "studio", "lab", "archive"}
	claimThings = []string{"laptop", "router", "printer", "camera", "tablet", "monitor", "keyboard", "headset"}
)

// claimTemplates each make one claim and its question from a random source.
var claimTemplates = []func(r *rand.Rand, i int) Claim{
	func(r *rand.Rand, i int) Claim {
		p, s := pick(r, claimProjects), pick(r, claimServices)
		host, port := fmt.Sprintf("%s-%d.internal", s[:3], i%997), 1024+r.IntN(60000)
		return Claim{Text: fmt.Sprintf("The %s of %s runs on %s port %d", s, p, host, port), Tags: []string{p},
			Query: fmt.Sprintf("which host and port does the %s of %s use", s, p)}
	},
	func(r *rand.Rand, i int) Claim {
		who := person(r)
		return Claim{Text: fmt.Sprintf("%s's birthday is on %s %d", who, pick(r, claimMonths), 1+r.IntN(28)),
			Query: fmt.Sprintf("when is %s's birthday", who)}
	},
	func(r *rand.Rand, i int) Claim {
		who, d := person(r), pick(r, claimDrinks)
		return Claim{Text: fmt.Sprintf("%s prefers %s in the %s at the %s", who, d, pick(r, []string{"morning", "afternoon", "evening"}), pick(r, claimPlaces)),
			Kind: "opinion", Query: fmt.Sprintf("what does %s like to drink", who)}
	},
	func(r *rand.Rand, i int) Claim {
		p := pick(r, claimProjects)
		v := fmt.Sprintf("%d.%d.%d", 1+r.IntN(9), r.IntN(30), r.IntN(20))
		return Claim{Text: fmt.Sprintf("Release %s of %s shipped on 2026-%02d-%02d", v, p, 1+r.IntN(12), 1+r.IntN(28)),
			Tags: []string{p}, Query: fmt.Sprintf("when did %s %s ship", p, v)}
	},
	func(r *rand.Rand, i int) Claim {
		who, c := person(r), pick(r, claimCities)
		return Claim{Text: fmt.Sprintf("%s moved to %s in %d", who, c, 2010+r.IntN(17)),
			Query: fmt.Sprintf("where does %s live now", who)}
	},
	func(r *rand.Rand, i int) Claim {
		pl := pick(r, claimPlaces)
		return Claim{Text: fmt.Sprintf("The door code of the %s on floor %d is %04d", pl, 1+i%9, r.IntN(10000)),
			Query: fmt.Sprintf("door code for the %s on floor %d", pl, 1+i%9)}
	},
	func(r *rand.Rand, i int) Claim {
		who, t, task := person(r), pick(r, claimTools), pick(r, claimTasks)
		return Claim{Text: fmt.Sprintf("%s recommends %s for %s", who, t, task), Kind: "opinion",
			Query: fmt.Sprintf("what tool does %s suggest for %s", who, task)}
	},
	func(r *rand.Rand, i int) Claim {
		c := pick(r, claimCities)
		code := fmt.Sprintf("%c%c%d", 'A'+r.IntN(26), 'A'+r.IntN(26), 100+r.IntN(900))
		return Claim{Text: fmt.Sprintf("Flight %s to %s leaves at %02d:%02d from gate %c%d", code, c, r.IntN(24), 5*r.IntN(12), 'A'+r.IntN(6), 1+r.IntN(40)),
			Query: fmt.Sprintf("when does flight %s leave", code)}
	},
	func(r *rand.Rand, i int) Claim {
		p := pick(r, claimProjects)
		return Claim{Text: fmt.Sprintf("The nightly backup of %s runs every %d hours to bucket bk-%d", p, 1+r.IntN(24), i),
			Tags: []string{p}, Query: fmt.Sprintf("how often is %s backed up", p)}
	},
	func(r *rand.Rand, i int) Claim {
		who, f := person(r), pick(r, claimFoods)
		return Claim{Text: fmt.Sprintf("%s has been allergic to %s since %d", who, f, 1990+r.IntN(36)), Query: fmt.Sprintf("is %s allergic to anything", who)}
	},
	func(r *rand.Rand, i int) Claim {
		p := pick(r, claimProjects)
		q := 1 + r.IntN(4)
		return Claim{Text: fmt.Sprintf("The %s budget for Q%d is %d euros", p, q, 1000*(5+r.IntN(400))), Tags: []string{p},
			Query: fmt.Sprintf("what is the budget of %s in Q%d", p, q)}
	},
	func(r *rand.Rand, i int) Claim {
		who, th := person(r), pick(r, claimThings)
		serial := fmt.Sprintf("SN%06d", r.IntN(1000000))
		return Claim{Text: fmt.Sprintf("%s's %s has serial number %s", who, th, serial),
			Query: fmt.Sprintf("serial number of %s's %s", who, th)}
	},
}

func pick(r *rand.Rand, words []string) string { return words[r.IntN(len(words))] }

// person is a full name: 360 of them, so personal facts rarely repeat.
func person(r *rand.Rand) string { return pick(r, claimPeople) + " " + pick(r, claimSurnames) }

// GenerateClaims returns n varied one-claim memories, the same n for the
// same seed on every machine.
func GenerateClaims(seed uint64, n int) []Claim {
	st := NewClaimStream(seed)
	out := make([]Claim, n)
	for i := range out {
		out[i] = st.Next()
	}
	return out
}

// ClaimStream draws the claims of [GenerateClaims] one at a time, so a
// million of them need not be held: the first n it yields are exactly
// GenerateClaims(seed, n).
type ClaimStream struct {
	r *rand.Rand
	i int
}

// NewClaimStream starts the claims of seed.
func NewClaimStream(seed uint64) *ClaimStream {
	return &ClaimStream{r: rand.New(rand.NewPCG(seed, 0x636c61696d73))}
}

// Next returns the next claim.
func (s *ClaimStream) Next() Claim {
	c := claimTemplates[s.r.IntN(len(claimTemplates))](s.r, s.i)
	s.i++
	return c
}
