package vault

import (
	"strings"
	"testing"
	"time"

	"github.com/compartment/compartment/embed"
)

// gatedEncoder is bowEncoder whose EmbedDocuments, once armed, says it
// started and waits to be let go: a test can act on the vault while a
// store is embedding.
type gatedEncoder struct {
	bowEncoder
	armed   chan struct{} // closed: the next EmbedDocuments waits
	started chan struct{}
	release chan struct{}
}

func (g *gatedEncoder) EmbedDocuments(texts []string) ([]embed.Document, error) {
	select {
	case <-g.armed:
		g.started <- struct{}{}
		<-g.release
	default:
	}
	return g.bowEncoder.EmbedDocuments(texts)
}

// TestStoreManyEmbedsWithoutTheLock: while a batch is being embedded, a
// search, a store and a forget on the same handle go through, and the
// batch is then placed against the vault as they left it: the forgotten
// memory it supersedes refuses the batch (nothing is resurrected), and a
// fact stored meanwhile makes the same fact a duplicate, not a second copy.
func TestStoreManyEmbedsWithoutTheLock(t *testing.T) {
	g := &gatedEncoder{armed: make(chan struct{}), started: make(chan struct{}), release: make(chan struct{})}
	h := newHarness(t, g)
	v := h.open("user")
	old := h.store(v, StoreRequest{Text: "The deploy window is Tuesday at 14:00"}).ID
	close(g.armed)

	var batch []StoreResult
	during := func(req StoreRequest, act func()) error {
		t.Helper()
		errc := make(chan error, 1)
		go func() {
			var err error
			batch, err = v.StoreMany([]StoreRequest{req})
			errc <- err
		}()
		select {
		case <-g.started:
		case <-time.After(10 * time.Second):
			t.Fatal("the batch never started embedding")
		}
		acted := make(chan struct{})
		go func() { act(); close(acted) }()
		select {
		case <-acted:
		case <-time.After(10 * time.Second):
			close(g.release) // let the batch finish, so the test ends
			t.Fatal("a call on the vault waited for a batch that was only embedding: StoreMany holds the lock while it embeds")
		}
		g.release <- struct{}{}
		return <-errc
	}

	thursday := StoreRequest{Text: "The deploy window is Thursday at 10:00", Source: "from chat"}
	superseding := thursday
	superseding.Supersedes = []string{old}
	err := during(superseding, func() {
		if _, err := v.Search(SearchRequest{Query: "deploy window"}); err != nil {
			t.Error(err)
		}
		if _, err := v.Forget(old, false); err != nil {
			t.Error(err)
		}
	})
	if err == nil || !strings.Contains(err.Error(), "supersedes") {
		t.Fatalf("superseding a memory forgotten during the embed: %v, want the supersedes refusal", err)
	}
	if _, err := v.Get(old); err == nil {
		t.Fatal("the forgotten memory is back")
	}
	recent, _ := v.Recent(RecentRequest{Limit: 10})
	for _, r := range recent {
		if strings.Contains(r.Text, "Thursday") {
			t.Fatalf("a refused batch stored %q", r.Text)
		}
	}

	// The same fact stored while the batch embeds: the batch finds it.
	g.armed = make(chan struct{})
	close(g.armed)
	var first StoreResult
	err = during(thursday, func() {
		g.armed = make(chan struct{}) // the store below embeds without waiting
		first = h.store(v, StoreRequest{Text: "The deploy window is Thursday at 10:00"})
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	recent, _ = v.Recent(RecentRequest{Limit: 10})
	for _, r := range recent {
		if strings.Contains(r.Text, "Thursday") {
			n++
		}
	}
	if !first.Stored || n != 1 || len(batch) != 1 || !batch[0].Duplicate || batch[0].ID != first.ID {
		t.Errorf("the fact stored during the embed: %+v, the batch: %+v; %d copies of it, want 1", first, batch, n)
	}
}
