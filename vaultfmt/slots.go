package vaultfmt

import (
	"errors"
	"fmt"
	"io"
	"runtime"
)

// checkSlotSpec refuses slot specs that could not be unlocked or that
// would store parameters a reader refuses.
func checkSlotSpec(s SlotSpec) error {
	switch {
	case s.Kind != SlotPassphrase && s.Kind != SlotPassphraseKeyfile:
		return fmt.Errorf("vaultfmt: unknown key slot kind %d", s.Kind)
	case len(s.Passphrase) == 0:
		return errors.New("vaultfmt: key slot needs a passphrase")
	case s.Kind == SlotPassphraseKeyfile && len(s.Keyfile) == 0:
		return errors.New("vaultfmt: passphrase+keyfile slot needs keyfile contents")
	case s.Kind == SlotPassphrase && len(s.Keyfile) != 0:
		return errors.New("vaultfmt: a keyfile was given for a passphrase-only slot")
	}
	if err := checkKDF(s.KDF); err != nil {
		return fmt.Errorf("vaultfmt: key slot: %w", err)
	}
	return nil
}

// makeSlot wraps the master key under a fresh Argon2id KEK for spec.
func makeSlot(spec SlotSpec, master []byte, vaultID [16]byte, rnd io.Reader) (slot, error) {
	if err := checkSlotSpec(spec); err != nil {
		return slot{}, err
	}
	s := slot{kind: spec.Kind, kdf: spec.KDF}
	if _, err := io.ReadFull(rnd, s.salt[:]); err != nil {
		return slot{}, fmt.Errorf("vaultfmt: draw salt: %w", err)
	}
	kek := slotKEK(s.kind, s.kdf, s.salt[:], spec.Passphrase, spec.Keyfile)
	defer wipe(kek)
	sealed, err := seal(nil, kek, rnd, master, aadSlot(vaultID, s.head()))
	if err != nil {
		return slot{}, err
	}
	copy(s.nonce[:], sealed[:nonceSize])
	copy(s.wrapped[:], sealed[nonceSize:])
	return s, nil
}

// makeSlots wraps the master key once per spec.
func makeSlots(specs []SlotSpec, master []byte, vaultID [16]byte, rnd io.Reader) ([]slot, error) {
	if len(specs) < 1 || len(specs) > maxSlots {
		return nil, fmt.Errorf("vaultfmt: %d key slots, want 1..%d", len(specs), maxSlots)
	}
	out := make([]slot, 0, len(specs))
	for _, spec := range specs {
		s, err := makeSlot(spec, master, vaultID, rnd)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// openSlot tries one slot; it returns the master key or errOpen.
func openSlot(s *slot, vaultID [16]byte, passphrase, keyfile []byte) ([]byte, error) {
	kek := slotKEK(s.kind, s.kdf, s.salt[:], passphrase, keyfile)
	defer wipe(kek)
	sealed := make([]byte, 0, nonceSize+len(s.wrapped))
	sealed = append(append(sealed, s.nonce[:]...), s.wrapped[:]...)
	return open(kek, sealed, aadSlot(vaultID, s.head()))
}

// unlockKeys obtains the master key as u says and derives the subkeys. A
// master key given directly is checked against the header MAC (a wrong one
// is a wrong credential); one unwrapped from a slot is already
// authenticated, so a MAC mismatch then means the header was changed.
func unlockKeys(h *header, u Unlock) (*keys, error) {
	if u.MasterKey != nil {
		k, err := deriveKeys(u.MasterKey, h.vaultID)
		if err != nil {
			return nil, ErrWrongPassphrase
		}
		if !h.checkMAC(k) {
			k.zero()
			return nil, ErrWrongPassphrase
		}
		return k, nil
	}
	master, err := unwrapMaster(h, u)
	// Argon2id's working memory (64 MiB by default) is garbage now, but
	// the heap it grew sets the collector's next goal: a replay right
	// after would grow to twice that before the first collection.
	// Collecting it here, while the live heap is small, keeps an open's
	// peak to what the vault itself needs.
	runtime.GC()
	if err != nil {
		return nil, err
	}
	defer wipe(master)
	k, err := deriveKeys(master, h.vaultID)
	if err != nil {
		return nil, err
	}
	if !h.checkMAC(k) {
		k.zero()
		return nil, corruptf("header", int64(h.length)-trailerSize, -1, "header authentication failed: a header field was changed after it was written")
	}
	return k, nil
}

// unwrapMaster tries every slot the credential can open.
func unwrapMaster(h *header, u Unlock) ([]byte, error) {
	tried, needKeyfile := 0, false
	for i := range h.slots {
		s := &h.slots[i]
		if s.kind == SlotPassphraseKeyfile && len(u.Keyfile) == 0 {
			needKeyfile = true
			continue
		}
		tried++
		if master, err := openSlot(s, h.vaultID, u.Passphrase, u.Keyfile); err == nil {
			return master, nil
		}
	}
	if tried == 0 && needKeyfile {
		return nil, ErrKeyfileRequired
	}
	return nil, ErrWrongPassphrase
}
