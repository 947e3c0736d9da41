package vault

import (
	"fmt"
	"testing"

	"github.com/compartment/compartment/embed"
)

// Store pairs of the evaluation's shapes, written with other people and
// other words, stored through a vault with each bundled model (the real
// cosines, each pair in a namespace of its own): a changed mind is never
// re-affirmed, and a restatement is re-affirmed, never a conflict. Three
// restatements of the same set were left out as misses in session 7: a
// synonym ("drama shows" for "drama series"), an added clause with
// content words ("for what they give"), and a phrasal gerund ("backing
// up" for "backups"). The WordNet lexicon now re-affirms the third, and
// [givesReason] the second, the table of media ([oneMedium]) the first;
// opinion_heldout_test.go keeps all three shapes.
func TestStoreOpinionPairsInOtherWords(t *testing.T) {
	pairs := []struct {
		update        bool
		first, second string
	}{
		{true, "Ines prefers Python over Ruby for scripts.", "For scripts, Ines now prefers Ruby over Python."},
		{true, "Ines prefers aisle seats on long flights.", "Ines prefers window seats on long flights."},
		{true, "Tomas likes green tea in the afternoon.", "Tomas has gone off green tea and now prefers rooibos in the afternoon."},
		{true, "Tomas prefers light roast beans.", "Tomas prefers dark roast beans."},
		{true, "Kofi thinks microservices are a good fit for the billing system.", "Kofi now thinks microservices are overkill for the billing system."},
		{true, "Kofi prefers Vim for Rust work.", "Kofi prefers VS Code over Vim for Rust work."},
		{true, "Nadia prefers driving to Lyon.", "Nadia now prefers taking the bus to Lyon rather than driving."},
		{true, "Nadia wants short status updates from the team.", "Nadia wants long, detailed status updates from the team."},
		{true, "Ines thinks Slack works fine for the project.", "Ines has come to find Slack too noisy and would rather use email."},
		{true, "Tomas prefers swimming in the evening.", "Tomas prefers swimming in the morning."},
		{true, "Kofi prefers rebasing to keep history linear.", "Kofi now prefers merge commits over rebasing."},
		{true, "Nadia wants a gas stove in the new flat.", "Nadia wants an induction stove in the new flat."},
		{false, "Ines prefers Rust over C++ for new tools.", "For new tools, Ines would rather use Rust than C++."},
		{false, "Kofi prefers green tea without honey.", "Kofi likes his tea green, no honey."},
		{false, "Nadia finds Kubernetes overcomplicated.", "Nadia thinks Kubernetes is too complicated."},
		{false, "Ines prefers buses over taxis within the city.", "Within the city, Ines would rather take the bus than a taxi."},
		{false, "Tomas likes batch exports.", "Tomas prefers batch-exporting invoices."},
		{false, "Kofi dislikes calls in the evening.", "Kofi doesn't like having calls in the evenings."},
		{false, "Nadia thinks SQLite is the right default store.", "Nadia considers SQLite the sensible default store for most things."},
		{false, "Tomas prefers gRPC over REST for internal services.", "For internal services, Tomas favours gRPC over REST."},
		{false, "Nadia prefers working from home on Fridays.", "On Fridays, Nadia would rather work from home."},
	}
	for _, open := range []func() (embed.Encoder, error){embed.OpenStatic, embed.OpenStaticV2} {
		enc, err := open()
		if err != nil {
			t.Fatal(err)
		}
		h := newHarness(t, enc)
		v := h.open("user")
		for i, p := range pairs {
			ns := fmt.Sprintf("pair-%02d", i)
			if r := h.store(v, StoreRequest{Text: p.first, Kind: KindOpinion, Namespace: ns}); !r.Stored {
				t.Fatalf("%s: %q: %+v", enc.Info().Name, p.first, r)
			}
			r := h.store(v, StoreRequest{Text: p.second, Kind: KindOpinion, Namespace: ns})
			switch {
			case p.update && (r.Reaffirmed || r.Duplicate):
				t.Errorf("%s: the changed mind %q was folded into %q", enc.Info().Name, p.second, p.first)
			case !p.update && !r.Reaffirmed:
				t.Errorf("%s: the restatement %q of %q: %+v, want re-affirmed", enc.Info().Name, p.second, p.first, r)
			}
		}
	}
}

// A restatement the model puts far away (0.19) is found among many
// opinions by the literal channel, and re-affirmed.
func TestRestatementFarByCosineFoundLiterally(t *testing.T) {
	enc, err := embed.OpenStatic()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, enc)
	v := h.open("user")
	first := h.store(v, StoreRequest{Text: "Nadia finds Kubernetes overcomplicated.", Kind: KindOpinion})
	holders := []string{"Ines", "Tomas", "Kofi", "Oskar", "Priya", "Elin"}
	things := []string{"window seats", "rye bread", "paper notebooks", "jazz records", "board games", "audiobooks",
		"cold showers", "spicy food"}
	for i, who := range holders {
		for j, what := range things {
			if (i+j)%2 == 0 {
				h.store(v, StoreRequest{Text: who + " thinks " + what + " are too complicated.", Kind: KindOpinion})
			}
		}
	}
	r := h.store(v, StoreRequest{Text: "Nadia thinks Kubernetes is too complicated.", Kind: KindOpinion})
	if !r.Reaffirmed || r.ID != first.ID {
		t.Fatalf("%+v, want %s re-affirmed", r, first.ID)
	}
}
