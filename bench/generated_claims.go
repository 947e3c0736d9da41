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
//
// Every line is a distinct memory: the import stores n lines as n
// memories. Each template numbers its own uses (k), and the part of its
// claim that names what the claim is about (a person, a host, a flight, a
// release, a door, a cost centre) is a one-to-one function of k, so no
// two claims of a template say the same thing (a duplicate) or state two
// values of the same thing (an update); claims of different templates
// differ in their fixed words. The other fields stay random, as before.
//
// The questions are the generation-1 ones: most name what they ask about,
// but three templates ask in common words only (which host and port the
// billing service of a project uses, how often a project is backed up,
// its budget in a quarter), which many claims answer. Those questions read
// long posting lists, and the latency bench keeps them so its figures
// stay comparable with the ones measured before every line was distinct.
var (
	claimPeople = []string{"Priya", "Max", "Ana", "Tomas", "Lena", "Omar", "Yuki", "Sam", "Ingrid", "Kofi",
		"Marta", "Dev", "Chloe", "Rafael", "Noor", "Jonas", "Aiko", "Pedro", "Zara", "Henrik",
		"Amara", "Bruno", "Carmen", "Dmitri", "Elif", "Farid", "Greta", "Hugo", "Isla", "Jamal",
		"Keiko", "Luca", "Mei", "Nikolai", "Olga", "Pablo", "Quinn", "Rosa", "Sven", "Tariq",
		"Uma", "Viktor", "Wen", "Ximena", "Yara", "Zoltan", "Aditi", "Bjorn", "Celine", "Diego",
		"Esther", "Felix", "Gwen", "Hamid", "Ines", "Jin", "Kasia", "Leon", "Mira", "Nils",
		"Oskar", "Paula", "Ravi", "Sofia"}
	// A surname is one of claimSurnameHeads and one of claimSurnameTails
	// ("Bren" + "ova"): 64 × 48 of them, 196,608 full names in all.
	claimSurnameHeads = []string{"Al", "Bren", "Cas", "Dal", "Ek", "Fen", "Gar", "Hal", "Iv", "Jan",
		"Kel", "Lind", "Mor", "Nor", "Ok", "Pel", "Quen", "Ros", "Sil", "Tan",
		"Ul", "Var", "Wes", "Yar", "Zel", "Ash", "Bel", "Cor", "Dun", "Ers",
		"Falk", "Gil", "Hart", "Isak", "Jor", "Kov", "Lam", "Mar", "Nak", "Ost",
		"Pry", "Rad", "Sand", "Tor", "Ved", "Wil", "Bar", "Cal", "Dor", "Eld",
		"Ferr", "Gor", "Hol", "Kar", "Lor", "Mel", "Nev", "Ord", "Pav", "Sor",
		"Tel", "Vel", "Bran", "Mald"}
	claimSurnameTails = []string{"ova", "son", "ford", "mann", "ski", "ez", "ini", "berg", "ley", "well",
		"stad", "quist", "ard", "ani", "enko", "ovic", "ton", "wood", "ier", "ello",
		"ström", "hout", "ada", "osa", "ek", "ich", "ara", "ath", "feld", "holm",
		"ida", "ike", "ola", "or", "ulu", "van", "ander", "ert", "ing", "itz",
		"lund", "mond", "nik", "ow", "rup", "sby", "ten", "yk"}
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

// claimTemplates each make one claim and its question from a random source
// and k, the number of claims the template made before.
var claimTemplates = []func(r *rand.Rand, k int) Claim{
	func(r *rand.Rand, k int) Claim {
		p, s := pick(r, claimProjects), pick(r, claimServices)
		host, port := fmt.Sprintf("%s-%d.internal", s[:3], k), 1024+r.IntN(60000)
		return Claim{Text: fmt.Sprintf("The %s of %s runs on %s port %d", s, p, host, port), Tags: []string{p},
			Query: fmt.Sprintf("which host and port does the %s of %s use", s, p)}
	},
	func(r *rand.Rand, k int) Claim {
		who := person(k)
		return Claim{Text: fmt.Sprintf("%s's birthday is on %s %d", who, pick(r, claimMonths), 1+r.IntN(28)),
			Query: fmt.Sprintf("when is %s's birthday", who)}
	},
	func(r *rand.Rand, k int) Claim {
		// The two opinion templates hold disjoint halves of the names, so
		// no holder has two opinions an update could fold.
		who, d := person(2*k), pick(r, claimDrinks)
		return Claim{Text: fmt.Sprintf("%s prefers %s in the %s at the %s", who, d, pick(r, []string{"morning", "afternoon", "evening"}), pick(r, claimPlaces)),
			Kind: "opinion", Query: fmt.Sprintf("what does %s like to drink", who)}
	},
	func(r *rand.Rand, k int) Claim {
		// k numbers the release: the project cycles fastest, then the
		// patch, the minor and the major version.
		p := claimProjects[k%len(claimProjects)]
		k /= len(claimProjects)
		v := fmt.Sprintf("%d.%d.%d", 1+k/(100*30), k/100%30, k%100)
		return Claim{Text: fmt.Sprintf("Release %s of %s shipped on 2026-%02d-%02d", v, p, 1+r.IntN(12), 1+r.IntN(28)),
			Tags: []string{p}, Query: fmt.Sprintf("when did %s %s ship", p, v)}
	},
	func(r *rand.Rand, k int) Claim {
		who, c := person(k), pick(r, claimCities)
		return Claim{Text: fmt.Sprintf("%s moved to %s in %d", who, c, 2010+r.IntN(17)),
			Query: fmt.Sprintf("where does %s live now", who)}
	},
	func(r *rand.Rand, k int) Claim {
		pl, floor, building := claimPlaces[k%len(claimPlaces)], 1+k/len(claimPlaces)%9, 1+k/(9*len(claimPlaces))
		return Claim{Text: fmt.Sprintf("The door code of the %s on floor %d of building %d is %04d", pl, floor, building, r.IntN(10000)),
			Query: fmt.Sprintf("door code for the %s on floor %d of building %d", pl, floor, building)}
	},
	func(r *rand.Rand, k int) Claim {
		who, t, task := person(2*k+1), pick(r, claimTools), pick(r, claimTasks)
		return Claim{Text: fmt.Sprintf("%s recommends %s for %s", who, t, task), Kind: "opinion",
			Query: fmt.Sprintf("what tool does %s suggest for %s", who, task)}
	},
	func(r *rand.Rand, k int) Claim {
		c := pick(r, claimCities)
		// A flight number per k: 676 letter pairs × 900 numbers, in an
		// order that does not walk the alphabet.
		n := k * 7919 % (26 * 26 * 900)
		code := fmt.Sprintf("%c%c%d", 'A'+n%26, 'A'+n/26%26, 100+n/(26*26))
		return Claim{Text: fmt.Sprintf("Flight %s to %s leaves at %02d:%02d from gate %c%d", code, c, r.IntN(24), 5*r.IntN(12), 'A'+r.IntN(6), 1+r.IntN(40)),
			Query: fmt.Sprintf("when does flight %s leave", code)}
	},
	func(r *rand.Rand, k int) Claim {
		p := pick(r, claimProjects)
		return Claim{Text: fmt.Sprintf("The nightly backup of %s runs every %d hours to bucket bk-%d", p, 1+r.IntN(24), k),
			Tags: []string{p}, Query: fmt.Sprintf("how often is %s backed up", p)}
	},
	func(r *rand.Rand, k int) Claim {
		who, f := person(k), pick(r, claimFoods)
		return Claim{Text: fmt.Sprintf("%s has been allergic to %s since %d", who, f, 1990+r.IntN(36)), Query: fmt.Sprintf("is %s allergic to anything", who)}
	},
	func(r *rand.Rand, k int) Claim {
		p := pick(r, claimProjects)
		q, centre := 1+k%4, 100+k/4
		return Claim{Text: fmt.Sprintf("The %s budget of cost centre %d for Q%d is %d euros", p, centre, q, 1000*(5+r.IntN(400))), Tags: []string{p},
			Query: fmt.Sprintf("what is the budget of %s in Q%d", p, q)}
	},
	func(r *rand.Rand, k int) Claim {
		who, th := person(k), pick(r, claimThings)
		serial := fmt.Sprintf("SN%06d", r.IntN(1000000))
		return Claim{Text: fmt.Sprintf("%s's %s has serial number %s", who, th, serial),
			Query: fmt.Sprintf("serial number of %s's %s", who, th)}
	},
}

func pick(r *rand.Rand, words []string) string { return words[r.IntN(len(words))] }

// person is the k-th full name: the first name cycles fastest, then the two
// halves of the surname, so the first 196,608 are all different (a
// template past that many claims repeats its names).
func person(k int) string {
	f, h, t := len(claimPeople), len(claimSurnameHeads), len(claimSurnameTails)
	k %= f * h * t
	return claimPeople[k%f] + " " + claimSurnameHeads[k/f%h] + claimSurnameTails[k/(f*h)]
}

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
	r    *rand.Rand
	uses []int // claims each template made so far, its k
}

// NewClaimStream starts the claims of seed.
func NewClaimStream(seed uint64) *ClaimStream {
	return &ClaimStream{r: rand.New(rand.NewPCG(seed, 0x636c61696d73)), uses: make([]int, len(claimTemplates))}
}

// Next returns the next claim.
func (s *ClaimStream) Next() Claim {
	t := s.r.IntN(len(claimTemplates))
	c := claimTemplates[t](s.r, s.uses[t])
	s.uses[t]++
	return c
}
