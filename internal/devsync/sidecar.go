package devsync

import (
	"bytes"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
)

// <vault>.sync.json (FORMAT.md 10.6): which folder this vault syncs with,
// as which device, the folder key sealed under this vault's key, the
// greatest clock seen, and the newest state of each log merged.

const (
	sidecarVersion = 1
	sidecarAADTag  = "compartment sync sidecar v1\x00"
	stateMACTag    = "compartment sync state v1\x00"
)

// SidecarPath is where a vault remembers its sync folder.
func SidecarPath(vaultPath string) string { return vaultPath + ".sync.json" }

type seenLog struct {
	Generation uint64 `json:"generation"`
	Frames     uint64 `json:"frames"`
	Chain      string `json:"chain"`
}

type sidecar struct {
	Version    int                `json:"version"`
	Folder     string             `json:"folder"`
	FolderID   string             `json:"folder_id"`
	DeviceID   string             `json:"device_id"`
	DeviceName string             `json:"device_name"`
	SealedKey  string             `json:"sealed_key"`
	Clock      Clock              `json:"clock"`
	Seen       map[string]seenLog `json:"seen"`
	MAC        string             `json:"mac"`

	folderID, deviceID [16]byte
}

func sidecarKey(master []byte, vaultID [16]byte, info string) ([]byte, error) {
	return hkdf.Key(sha256.New, master, vaultID[:], info, keySize)
}

func (s *sidecar) keyAAD(vaultID [16]byte) []byte {
	aad := append([]byte(sidecarAADTag), vaultID[:]...)
	aad = append(aad, s.folderID[:]...)
	return append(aad, s.deviceID[:]...)
}

func (s *sidecar) stateMAC(key []byte) (string, error) {
	b := append([]byte(stateMACTag), s.folderID[:]...)
	b = append(b, s.deviceID[:]...)
	b = binary.LittleEndian.AppendUint64(b, s.Clock.Wall)
	b = binary.LittleEndian.AppendUint32(b, s.Clock.Logical)
	ids := make([]string, 0, len(s.Seen))
	for id := range s.Seen {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ids)))
	for _, id := range ids {
		raw, err := hex.DecodeString(id)
		chain, err2 := hex.DecodeString(s.Seen[id].Chain)
		if err != nil || err2 != nil || len(raw) != 16 || len(chain) != macSize {
			return "", fmt.Errorf("a malformed seen entry")
		}
		b = append(b, raw...)
		b = binary.LittleEndian.AppendUint64(b, s.Seen[id].Generation)
		b = binary.LittleEndian.AppendUint64(b, s.Seen[id].Frames)
		b = append(b, chain...)
	}
	m := hmacSum(key, b)
	return hex.EncodeToString(m[:]), nil
}

// sealKey stores the folder key sealed under this vault's key.
func (s *sidecar) sealKey(folderKey, master []byte, vaultID [16]byte) error {
	k, err := sidecarKey(master, vaultID, "compartment v1 sync sidecar key")
	if err != nil {
		return err
	}
	sealed, err := seal(k, folderKey, s.keyAAD(vaultID))
	if err != nil {
		return err
	}
	s.SealedKey = hex.EncodeToString(sealed)
	return nil
}

func (s *sidecar) openKey(master []byte, vaultID [16]byte) ([]byte, error) {
	k, err := sidecarKey(master, vaultID, "compartment v1 sync sidecar key")
	if err != nil {
		return nil, err
	}
	sealed, err := hex.DecodeString(s.SealedKey)
	if err != nil {
		return nil, err
	}
	return open(k, sealed, s.keyAAD(vaultID))
}

func loadSidecar(vaultPath string, master []byte, vaultID [16]byte) (*sidecar, error) {
	path := SidecarPath(vaultPath)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotSynced
	}
	if err != nil {
		return nil, fmt.Errorf("devsync: read %s: %w", path, err)
	}
	bad := func(why string) error {
		return fmt.Errorf("%w: %s %s: run `compartment sync leave` and `sync join` again", ErrRefused, path, why)
	}
	s := &sidecar{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(s); err != nil {
		return nil, bad("does not parse (" + err.Error() + ")")
	}
	if s.Version != sidecarVersion {
		return nil, bad(fmt.Sprintf("has version %d, which this build does not know", s.Version))
	}
	fid, err1 := hex.DecodeString(s.FolderID)
	did, err2 := hex.DecodeString(s.DeviceID)
	if err1 != nil || err2 != nil || len(fid) != 16 || len(did) != 16 {
		return nil, bad("has malformed ids")
	}
	copy(s.folderID[:], fid)
	copy(s.deviceID[:], did)
	if s.Seen == nil {
		s.Seen = map[string]seenLog{}
	}
	mk, err := sidecarKey(master, vaultID, "compartment v1 sync state key")
	if err != nil {
		return nil, err
	}
	want, err := s.stateMAC(mk)
	if err != nil || !hmac.Equal([]byte(want), []byte(s.MAC)) {
		return nil, bad("fails its MAC (it was altered, or belongs to another vault)")
	}
	return s, nil
}

func (s *sidecar) save(vaultPath string, master []byte, vaultID [16]byte) error {
	mk, err := sidecarKey(master, vaultID, "compartment v1 sync state key")
	if err != nil {
		return err
	}
	if s.MAC, err = s.stateMAC(mk); err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	path := SidecarPath(vaultPath)
	if err := writeAtomic(path, path+".tmp", append(b, '\n')); err != nil {
		return fmt.Errorf("devsync: write %s: %w", path, err)
	}
	return nil
}
