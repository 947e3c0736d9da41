package devsync

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"
	"unicode/utf8"
)

// OpKind is what a log operation does (FORMAT.md 10.3). Part of the
// format: do not change the values.
type OpKind uint8

const (
	OpStore      OpKind = 1  // payload: the record body
	OpSupersede  OpKind = 2  // payload: the id of the replacing record (zeros: live again)
	OpForget     OpKind = 3  // no payload
	OpShred      OpKind = 4  // no payload
	OpLink       OpKind = 5  // payload: the relation body
	OpUnlink     OpKind = 6  // no payload
	OpTags       OpKind = 7  // payload: count u16, then len u16 || UTF-8 per tag
	OpImportance OpKind = 8  // payload: f64
	OpAffirm     OpKind = 9  // payload: i64 Unix milliseconds
	OpEdit       OpKind = 10 // payload: the record body
	OpRedacted   OpKind = 11 // no payload: a shredded target's content, removed
)

var opNames = [...]string{"", "store", "supersede", "forget", "shred", "link", "unlink", "tags", "importance", "affirm", "edit", "redacted"}

func (k OpKind) String() string {
	if int(k) < len(opNames) && k > 0 {
		return opNames[k]
	}
	return fmt.Sprintf("op%d", uint8(k))
}

// carriesContent: the op's payload holds a record's or relation's content
// (what a shred must remove from the log).
func (k OpKind) carriesContent() bool { return k == OpStore || k == OpEdit || k == OpLink }

// Op is one operation of a device's log.
type Op struct {
	Kind    OpKind
	Device  [16]byte
	Clock   Clock
	Target  [16]byte
	Payload []byte
}

func (o *Op) stamp() stamp { return stamp{o.Clock, o.Device} }

// checkPayload refuses a payload of the wrong shape for its op.
func (o *Op) checkPayload() error {
	switch o.Kind {
	case OpStore, OpEdit, OpLink:
		if len(o.Payload) == 0 {
			return fmt.Errorf("%s without a body", o.Kind)
		}
	case OpForget, OpShred, OpUnlink, OpRedacted:
		if len(o.Payload) != 0 {
			return fmt.Errorf("%s with a payload", o.Kind)
		}
	case OpSupersede:
		if len(o.Payload) != 16 {
			return fmt.Errorf("supersede payload of %d bytes", len(o.Payload))
		}
	case OpImportance, OpAffirm:
		if len(o.Payload) != 8 {
			return fmt.Errorf("%s payload of %d bytes", o.Kind, len(o.Payload))
		}
	case OpTags:
		if _, err := decodeTags(o.Payload); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown operation %d: the log comes from a newer version of compartment; update it", o.Kind)
	}
	return nil
}

func encodeTags(tags []string) []byte {
	b := binary.LittleEndian.AppendUint16(nil, uint16(len(tags)))
	for _, t := range tags {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(t)))
		b = append(b, t...)
	}
	return b
}

func decodeTags(b []byte) ([]string, error) {
	if len(b) < 2 {
		return nil, fmt.Errorf("tags payload too short")
	}
	n := int(binary.LittleEndian.Uint16(b))
	b = b[2:]
	tags := make([]string, 0, min(n, len(b)/2))
	for range n {
		if len(b) < 2 || len(b) < 2+int(binary.LittleEndian.Uint16(b)) {
			return nil, fmt.Errorf("tags payload overruns")
		}
		l := int(binary.LittleEndian.Uint16(b))
		t := string(b[2 : 2+l])
		if !utf8.ValidString(t) {
			return nil, fmt.Errorf("tag is not UTF-8")
		}
		tags = append(tags, t)
		b = b[2+l:]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("bytes after the tags")
	}
	return tags, nil
}

func encodeF64(x float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(x)) }
func decodeF64(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }

func encodeTime(t time.Time) []byte {
	if t.IsZero() {
		return binary.LittleEndian.AppendUint64(nil, 0)
	}
	return binary.LittleEndian.AppendUint64(nil, uint64(t.UnixMilli()))
}

func decodeTime(b []byte) time.Time {
	ms := int64(binary.LittleEndian.Uint64(b))
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}
