package vault

import (
	"sort"
	"strings"
)

// checkNamespaceCase refuses a namespace new to the vault that differs
// from one already there only in case (#27: "Work/x" beside "work/x"):
// namespace identity is case-insensitive where a namespace is created, so
// two spellings never split one agent's memories or dodge a grant written
// for the other. A namespace already in the vault, in any spelling it has,
// stays writable: vaults that hold two spellings from before keep working.
// batch holds the spellings a batch being built has introduced (folded
// name → spelling), so one import cannot create both; nil for one store.
// The caller holds v.mu.
func (v *Vault) checkNamespaceCase(ns string, batch map[string]string) error {
	ix := v.st.index
	if ix == nil || ix.namespaces[ns] > 0 {
		return nil
	}
	fold := strings.ToLower(ns)
	var have []string
	for name := range ix.namespaces {
		if name != ns && strings.ToLower(name) == fold {
			have = append(have, name)
		}
	}
	if spelled, ok := batch[fold]; ok && spelled != ns {
		have = append(have, spelled)
	}
	if len(have) > 0 {
		sort.Strings(have)
		return invalidf("namespace %q differs from the existing namespace %q only in case: a namespace is one name in every spelling, so use %q", ns, have[0], have[0])
	}
	if batch != nil {
		batch[fold] = ns
	}
	return nil
}
