package devsync

import (
	"bytes"
	"crypto/hmac"
	"encoding/binary"
	"fmt"
	"os"
	"time"
)

// <device>.dev (FORMAT.md 10.2):
//
//	0      magic "CMPSDEV1"   8
//	8      version u16, flags u16 (bit 0: left)
//	12     folder id          16
//	28     device id          16
//	44     joined i64, left i64
//	60     name length u16 (≤ 255), name
//	62+L   HMAC-SHA256(roster key, devDomain || bytes 0..62+L)
//
// Part of the format: do not change.
const (
	devMagic    = "CMPSDEV1"
	devDomain   = "compartment sync device v1\x00"
	devFlagLeft = 1
	maxNameLen  = 255
)

// Device is one entry of the folder's signed device list.
type Device struct {
	ID     [16]byte
	Name   string
	Joined time.Time
	Left   time.Time // zero while a member
}

func (d *Device) encode(k *folderKeys) []byte {
	b := append([]byte(nil), devMagic...)
	b = binary.LittleEndian.AppendUint16(b, formatVersion)
	var flags uint16
	var left int64
	if !d.Left.IsZero() {
		flags, left = devFlagLeft, d.Left.UnixNano()
	}
	b = binary.LittleEndian.AppendUint16(b, flags)
	b = append(b, k.folderID[:]...)
	b = append(b, d.ID[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(d.Joined.UnixNano()))
	b = binary.LittleEndian.AppendUint64(b, uint64(left))
	name := d.Name
	if len(name) > maxNameLen {
		name = name[:maxNameLen]
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(name)))
	b = append(b, name...)
	mac := hmacSum(k.roster, []byte(devDomain), b)
	return append(b, mac[:]...)
}

func decodeDevice(b []byte, k *folderKeys, want [16]byte) (*Device, error) {
	if len(b) < 62+macSize || !bytes.Equal(b[:8], []byte(devMagic)) {
		return nil, fmt.Errorf("not a device entry")
	}
	if v := binary.LittleEndian.Uint16(b[8:]); v != formatVersion {
		return nil, fmt.Errorf("format version %d, which this build does not know", v)
	}
	n := int(binary.LittleEndian.Uint16(b[60:]))
	if n > maxNameLen || len(b) != 62+n+macSize {
		return nil, fmt.Errorf("malformed")
	}
	mac := hmacSum(k.roster, []byte(devDomain), b[:62+n])
	if !hmac.Equal(mac[:], b[62+n:]) {
		return nil, fmt.Errorf("its signature fails (not signed with this folder's key)")
	}
	flags := binary.LittleEndian.Uint16(b[10:])
	if flags&^devFlagLeft != 0 || !bytes.Equal(b[12:28], k.folderID[:]) || !bytes.Equal(b[28:44], want[:]) {
		return nil, fmt.Errorf("it belongs to another folder or device")
	}
	d := &Device{Name: string(b[62 : 62+n]), Joined: time.Unix(0, int64(binary.LittleEndian.Uint64(b[44:]))).UTC()}
	copy(d.ID[:], b[28:44])
	if flags&devFlagLeft != 0 {
		d.Left = time.Unix(0, int64(binary.LittleEndian.Uint64(b[52:]))).UTC()
	}
	return d, nil
}

func writeDevice(dir string, k *folderKeys, d *Device) error {
	if err := writeAtomic(devPath(dir, d.ID), tmpPath(dir, d.ID, "dev"), d.encode(k)); err != nil {
		return fmt.Errorf("devsync: write this device's entry in %s: %w", dir, err)
	}
	return nil
}

// readRoster returns the valid device entries of dir, and a sentence for
// each .dev file that is not.
func readRoster(dir string, k *folderKeys) (map[[16]byte]*Device, []string, error) {
	devs, _, err := listFolder(dir)
	if err != nil {
		return nil, nil, err
	}
	out := map[[16]byte]*Device{}
	var bad []string
	for id := range devs {
		b, err := os.ReadFile(devPath(dir, id))
		if err == nil {
			var d *Device
			if d, err = decodeDevice(b, k, id); err == nil {
				out[id] = d
				continue
			}
		}
		bad = append(bad, fmt.Sprintf("device entry %s was ignored: %v", devPath(dir, id), err))
	}
	return out, bad, nil
}
