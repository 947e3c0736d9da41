package vault

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/compartment/compartment/vaultfmt"
)

// PackMemory is one entry of a memory pack: the JSON object of FORMAT.md
// §8.4.
type PackMemory struct {
	Text       string   `json:"text"`
	Source     string   `json:"source"`
	Discovered string   `json:"discovered,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Kind       string   `json:"kind,omitempty"`
	Importance *float64 `json:"importance,omitempty"`
}

// PackInfo describes an installed pack.
type PackInfo struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Memories  int    `json:"memories"`
	Version   string `json:"version,omitempty"`
	Author    string `json:"author,omitempty"` // fingerprint of the signing key
}

// PackNamespace is where pack name installs.
func PackNamespace(name string) string { return "packs/" + name }

// EncodePackEntries turns memories into pack entries.
func EncodePackEntries(mems []PackMemory) ([][]byte, error) {
	out := make([][]byte, len(mems))
	for i, m := range mems {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("vault: pack entry %d: %w", i, err)
		}
		out[i] = b
	}
	return out, nil
}

// DecodePackEntry reads one entry strictly (decodeStrictEntry): keys in
// exact case, once each, none unknown; text and source required.
func DecodePackEntry(b []byte) (PackMemory, error) {
	m, err := decodeStrictEntry(b)
	if err != nil {
		return m, invalidf("pack entry: %v", err)
	}
	if strings.TrimSpace(m.Text) == "" || strings.TrimSpace(m.Source) == "" {
		return m, invalidf("pack entry: text and source are required")
	}
	if m.Importance != nil && !(*m.Importance >= 0 && *m.Importance <= 1) {
		return m, invalidf("pack entry: importance %v is outside 0..1", *m.Importance)
	}
	return m, nil
}

// ErrPackOwned is returned when a pack of the same name, signed by another
// key, is installed: a name belongs to the key that installed it.
var ErrPackOwned = errors.New("a pack of that name signed by another key is installed")

// InstallPack puts a verified pack's memories under packs/<name>,
// replacing an earlier version of the same pack and nothing else. The
// namespace stays read-only for every caller: only this call writes it. A
// pack of the same name signed by another key is refused (ErrPackOwned).
func (v *Vault) InstallPack(p *vaultfmt.Pack) (BulkResult, error) {
	return v.InstallPackWith(p, PackInstall{})
}

// PackInstall says how InstallPackWith treats an installed pack.
type PackInstall struct {
	// Replace lets a pack signed by another key replace the installed pack
	// of the same name (`pack install --replace`); the name then belongs to
	// the new key.
	Replace bool
}

// InstallPackWith is InstallPack with options.
func (v *Vault) InstallPackWith(p *vaultfmt.Pack, o PackInstall) (BulkResult, error) {
	m := p.Manifest
	facts := make([]BulkFact, len(p.Entries))
	for i, e := range p.Entries {
		pm, err := DecodePackEntry(e)
		if err != nil {
			return BulkResult{}, fmt.Errorf("entry %d: %w (nothing was installed)", i, err)
		}
		facts[i] = BulkFact{Text: pm.Text, Source: pm.Source, Tags: pm.Tags, Discovered: pm.Discovered, Importance: pm.Importance, Kind: pm.Kind}
	}
	ns := PackNamespace(m.Name)
	target := fmt.Sprintf("%s %s %s key=%x", ns, packVersionField(m.Version), Fingerprint(m.Author), []byte(m.Author))
	scope := bulkScope{namespace: ns}
	if !o.Replace {
		scope.check = func() error { return v.checkPackOwner(ns, m.Author) }
	}
	return v.bulkReplace(scope, facts, "pack-install", target)
}

// checkPackOwner refuses author when the pack installed under ns (by the
// audit chain: its last install since its last removal) was signed by
// another key. Entries written before the full key was recorded name only
// the fingerprint, which is then compared. The caller holds v.mu.
func (v *Vault) checkPackOwner(ns string, author ed25519.PublicKey) error {
	live := false
	for _, r := range v.st.records.all() {
		if r.Namespace == ns && r.Live() {
			live = true
			break
		}
	}
	if !live {
		return nil // nothing installed: the name is free
	}
	var ownerFP, ownerKey string
	for _, s := range v.st.audit.positions() {
		e, _ := v.st.audit.get(s)
		f := strings.Fields(e.Target)
		if len(f) == 0 || f[0] != ns {
			continue
		}
		switch e.Op {
		case "pack-remove":
			ownerFP, ownerKey = "", ""
		case "pack-install":
			if len(f) >= 3 {
				ownerFP, ownerKey = f[2], ""
			}
			if len(f) >= 4 && strings.HasPrefix(f[3], "key=") {
				ownerKey = strings.TrimPrefix(f[3], "key=")
			}
		}
	}
	same := ownerFP == "" || (ownerKey != "" && ownerKey == hex.EncodeToString(author)) || (ownerKey == "" && ownerFP == Fingerprint(author))
	if same {
		return nil
	}
	return fmt.Errorf("%w: %s is installed from key %s and this pack is signed by %s; to let the new key take the name over, run `compartment pack install FILE --replace` (nothing was installed)",
		ErrPackOwned, ns, ownerFP, Fingerprint(author))
}

// packVersionField keeps the audit target parseable: one word.
func packVersionField(version string) string {
	if version == "" {
		return "-"
	}
	return strings.Join(strings.Fields(version), "_")
}

// RemovePack deletes every record of an installed pack.
func (v *Vault) RemovePack(name string) (BulkResult, error) {
	if err := vaultfmt.CheckPackName(name); err != nil {
		return BulkResult{}, invalidf("%v", err)
	}
	res, err := v.bulkReplace(bulkScope{namespace: PackNamespace(name)}, nil, "pack-remove", PackNamespace(name))
	if err == nil && res.Removed == 0 {
		return res, invalidf("no pack named %q is installed (`compartment pack list` shows them)", name)
	}
	return res, err
}

// Packs lists the installed packs, with the version and signer their last
// install recorded in the audit chain.
func (v *Vault) Packs() ([]PackInfo, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return nil, err
	}
	byNS := map[string]*PackInfo{}
	for _, r := range v.st.records.all() {
		if !isPack(r.Namespace) || !r.Live() || !v.canRead(r.Namespace) {
			continue
		}
		p := byNS[r.Namespace]
		if p == nil {
			p = &PackInfo{Name: strings.TrimPrefix(r.Namespace, "packs/"), Namespace: r.Namespace}
			byNS[r.Namespace] = p
		}
		p.Memories++
	}
	for _, s := range v.st.audit.positions() {
		e, _ := v.st.audit.get(s)
		f := strings.Fields(e.Target)
		if e.Op != "pack-install" || len(f) < 3 {
			continue
		}
		if p := byNS[f[0]]; p != nil {
			p.Version, p.Author = strings.Trim(f[1], "-"), f[2]
		}
	}
	out := make([]PackInfo, 0, len(byNS))
	for _, p := range byNS {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// PackMemories returns the live memories of a namespace the caller can
// read, oldest first, as pack entries: what `pack export` signs. Reference
// facts are left out (they ship with every binary).
func (v *Vault) PackMemories(namespace string) ([]PackMemory, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.refresh(); err != nil {
		return nil, err
	}
	if !v.canRead(namespace) {
		return nil, fmt.Errorf("%w: caller %q may not read namespace %q", ErrDenied, v.caller, namespace)
	}
	var recs []*Record
	for _, r := range v.st.records.all() {
		if r.Namespace == namespace && r.Live() && !r.Reference {
			recs = append(recs, r)
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Seq < recs[j].Seq })
	out := make([]PackMemory, len(recs))
	for i, r := range recs {
		imp := r.Importance
		out[i] = PackMemory{Text: r.Text, Source: r.Source, Discovered: r.Discovered, Tags: r.Tags, Kind: r.Kind, Importance: &imp}
	}
	return out, nil
}

// TrustedKeysPath is the trust list beside a vault (FORMAT.md §7.7).
func TrustedKeysPath(vaultPath string) string { return vaultPath + ".trusted-keys" }

// ParsePublicKey reads an Ed25519 public key written as 64 hex digits.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	k, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil || len(k) != ed25519.PublicKeySize {
		return nil, invalidf("key %q: an Ed25519 public key is 64 hex digits (`compartment pack key` prints yours)", s)
	}
	return ed25519.PublicKey(k), nil
}

// LoadTrustedKeys reads the trust list; a missing list is empty.
func LoadTrustedKeys(path string) ([]ed25519.PublicKey, error) {
	b, err := readOptional(path)
	if err != nil {
		return nil, fmt.Errorf("read trust list %s: %w", path, err)
	}
	var keys []ed25519.PublicKey
	for n, line := range strings.Split(string(b), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		k, err := ParsePublicKey(f[0])
		if err != nil {
			return nil, fmt.Errorf("trust list %s line %d: %w", path, n+1, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// AddTrustedKey appends key (with an optional name) to the trust list.
func AddTrustedKey(path string, key ed25519.PublicKey, name string) error {
	b, err := readOptional(path)
	if err != nil {
		return fmt.Errorf("read trust list %s: %w", path, err)
	}
	line := fmt.Sprintf("%x", []byte(key))
	if name = strings.Join(strings.Fields(name), " "); name != "" {
		line += " " + name
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	b = append(b, line+"\n"...)
	return writeFileAtomic(path, b, 0o600)
}

// readOptional reads a file that may not exist yet (as empty).
func readOptional(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}
