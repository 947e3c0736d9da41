package vault

import (
	"fmt"
	"sort"

	"github.com/compartment/compartment/vaultfmt"
)

// reindexBatch is how many records share one embed call and one fsync.
const reindexBatch = 64

// ReindexOptions configure [Vault.Reindex].
type ReindexOptions struct {
	// All re-embeds every record, not only those whose vectors are missing
	// or come from another model.
	All bool
	// Int8 chooses the storage of the new vectors (nil: the setting).
	Int8 *bool
	// Progress is told how many of total records are done.
	Progress func(done, total int)
	// Model, when set, is the model setting saved (with Int8's storage)
	// once every record is embedded, so a switch that fails leaves the
	// vault on its old model.
	Model string
}

// Reindex pins the vault to the loaded model and embeds every record that
// has no vectors from it. It is resumable: each batch is durable on its own,
// vectors from another model are never used for search, and running it
// again continues where an interrupted run stopped.
func (v *Vault) Reindex(opts ReindexOptions) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.enc == nil {
		return 0, fmt.Errorf("reindex: no embedding model is loaded")
	}
	if err := v.refresh(); err != nil {
		return 0, err
	}
	info := v.enc.Info()
	if pin := v.file.Header().Pin; pin.SHA256 != info.SHA256 || pin.Name != info.Name {
		if err := v.file.SetPin(pinOf(info)); err != nil {
			return 0, fmt.Errorf("reindex: record the new model: %w", err)
		}
	}
	if opts.Int8 != nil {
		v.cfg.Settings.Int8Vectors = *opts.Int8
	}
	todo := v.needEmbedding(opts.All)
	done := 0
	for start := 0; start < len(todo); start += reindexBatch {
		batch := todo[start:min(start+reindexBatch, len(todo))]
		if err := v.reembed(batch); err != nil {
			return done, fmt.Errorf("reindex: %w (%d records done; run it again to continue)", err, done)
		}
		done += len(batch)
		if opts.Progress != nil {
			opts.Progress(done, len(todo))
		}
	}
	if opts.Model == "" && opts.Int8 == nil {
		return done, nil
	}
	if opts.Model != "" {
		v.cfg.Settings.Model = opts.Model
	}
	if err := v.cfg.Save(v.path); err != nil {
		return done, fmt.Errorf("reindex: %w (the vectors were re-embedded; set the model setting by hand)", err)
	}
	return done, nil
}

// needEmbedding lists records lacking current vectors, oldest first.
func (v *Vault) needEmbedding(all bool) []string {
	var ids []string
	for id, r := range v.st.records.all() {
		if all || !v.hasCurrentVectors(r) {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return v.st.records.get(ids[i]).Seq < v.st.records.get(ids[j]).Seq })
	return ids
}

// hasCurrentVectors reports whether r's vectors come from the loaded model.
func (v *Vault) hasCurrentVectors(r *Record) bool {
	if v.enc == nil || r.Vectors == nil {
		return false
	}
	return r.Vectors.Model == v.model
}

func (v *Vault) reembed(ids []string) error {
	recs := make([]*Record, 0, len(ids))
	for _, id := range ids {
		if r, ok := v.st.records.lookup(id); ok {
			cp := *r
			recs = append(recs, &cp)
		}
	}
	if err := v.embedRecords(recs); err != nil {
		return err
	}
	return v.update(func() ([]vaultfmt.Change, error) {
		var changes []vaultfmt.Change
		for _, r := range recs {
			id, _ := parseID(r.ID)
			changes = append(changes, vaultfmt.Change{Op: vaultfmt.OpPut, Item: vaultfmt.Item{ID: id, Kind: kindRecord, Body: encodeRecord(r)}})
		}
		return changes, nil
	})
}

// Unembedded counts records without vectors from the loaded model.
func (v *Vault) unembedded() int {
	if v.enc == nil {
		return 0
	}
	n := 0
	v.st.records.facets(func(r facet) {
		if !r.vectors || r.model != v.model { // hasCurrentVectors
			n++
		}
	})
	return n
}
