package vault

// Item bodies are a version byte followed by fields (FORMAT.md §3):
//
//	+---------+------------------------------------------------------+
//	| version | field*                                               |
//	|  u8 = 1 | tag uvarint | len uvarint | value [len]byte          |
//	+---------+------------------------------------------------------+
//
// Readers skip tags they do not know, so later versions can add fields
// without breaking older readers. Integers are little-endian.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
	"unique"
)

// bodyVersion is the item body layout version. Part of the format: do not
// change.
const bodyVersion = 1

var errBody = errors.New("vault: malformed item body")

// fieldWriter appends tagged fields to a body.
type fieldWriter struct{ buf []byte }

func newFieldWriter() *fieldWriter { return &fieldWriter{buf: []byte{bodyVersion}} }

func (w *fieldWriter) bytes(tag uint64, v []byte) {
	w.buf = binary.AppendUvarint(w.buf, tag)
	w.buf = binary.AppendUvarint(w.buf, uint64(len(v)))
	w.buf = append(w.buf, v...)
}

func (w *fieldWriter) str(tag uint64, s string) {
	if s != "" {
		w.bytes(tag, []byte(s))
	}
}

func (w *fieldWriter) strs(tag uint64, ss []string) {
	for _, s := range ss {
		w.bytes(tag, []byte(s))
	}
}

func (w *fieldWriter) u64(tag uint64, v uint64) {
	w.bytes(tag, binary.LittleEndian.AppendUint64(nil, v))
}

func (w *fieldWriter) f64(tag uint64, v float64) { w.u64(tag, math.Float64bits(v)) }

func (w *fieldWriter) time(tag uint64, t time.Time) {
	if !t.IsZero() {
		w.u64(tag, uint64(t.UnixMilli()))
	}
}

func (w *fieldWriter) flag(tag uint64, b bool) {
	if b {
		w.bytes(tag, []byte{1})
	}
}

// fieldReader walks the fields of a body.
type fieldReader struct {
	buf []byte
	err error
}

// newFieldReader returns the reader by value: an open decodes a few
// hundred thousand bodies, and a pointer would put each reader on the heap.
func newFieldReader(body []byte) (fieldReader, error) {
	if len(body) == 0 {
		return fieldReader{}, fmt.Errorf("%w: empty", errBody)
	}
	if body[0] != bodyVersion {
		return fieldReader{}, fmt.Errorf("%w: unknown body version %d", errBody, body[0])
	}
	return fieldReader{buf: body[1:]}, nil
}

// next returns the next field; ok is false at the end or on error (see err).
func (r *fieldReader) next() (tag uint64, val []byte, ok bool) {
	if len(r.buf) == 0 || r.err != nil {
		return 0, nil, false
	}
	tag, n := binary.Uvarint(r.buf)
	if n <= 0 {
		r.err = fmt.Errorf("%w: bad tag", errBody)
		return 0, nil, false
	}
	r.buf = r.buf[n:]
	size, n := binary.Uvarint(r.buf)
	if n <= 0 || size > uint64(len(r.buf)-n) {
		r.err = fmt.Errorf("%w: field %d overruns the body", errBody, tag)
		return 0, nil, false
	}
	val = r.buf[n : n+int(size)]
	r.buf = r.buf[n+int(size):]
	return tag, val, true
}

// interned returns v as a string shared with every other field of the
// same value: a vault's records repeat a handful of sources, namespaces,
// kinds, callers, dates and tags thousands of times, and an open vault
// keeps every record in RAM (unique.Make holds them weakly, so a value no
// record uses any more is collected).
func interned(v []byte) string { return unique.Make(string(v)).Value() }

// internTable remembers, for the length of one replay, the strings
// interned so far: a replay interns a few values hundreds of thousands of
// times, and a plain map lookup costs a fraction of [unique.Make] (a tenth
// of a 100,000-memory open went to it). The values are still those of
// unique.Make, shared with records decoded later; dropping the table
// after the replay keeps them weak. A nil table interns directly.
type internTable map[string]string

func (t internTable) get(v []byte) string {
	if t == nil {
		return interned(v)
	}
	if s, ok := t[string(v)]; ok {
		return s
	}
	s := interned(v)
	t[s] = s
	return s
}

func readU64(v []byte) (uint64, error) {
	if len(v) != 8 {
		return 0, fmt.Errorf("%w: want 8 bytes, have %d", errBody, len(v))
	}
	return binary.LittleEndian.Uint64(v), nil
}

func readTime(v []byte) (time.Time, error) {
	ms, err := readU64(v)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(int64(ms)).UTC(), nil
}

func readF64(v []byte) (float64, error) {
	bits, err := readU64(v)
	return math.Float64frombits(bits), err
}

// Record field tags. Part of the format: do not change.
const (
	recText         = 1
	recSource       = 2
	recDiscovered   = 3
	recCreated      = 4
	recNamespace    = 5
	recTag          = 6
	recImportance   = 7
	recKind         = 8
	recExpires      = 9
	recSupersedes   = 10
	recSupersededBy = 11
	recQuarantined  = 12
	recCaller       = 13
	recAffirmed     = 14
	recSeq          = 15
	recReference    = 16
	recTagOrigin    = 17
	recSplitInto    = 18
	recVectors      = 32
)

// encodeRecord returns the item body of r (its id is the item id).
func encodeRecord(r *Record) []byte {
	w := newFieldWriter()
	w.str(recText, r.Text)
	w.str(recSource, r.Source)
	w.str(recDiscovered, r.Discovered)
	w.time(recCreated, r.Created)
	w.str(recNamespace, r.Namespace)
	w.strs(recTag, r.Tags)
	w.f64(recImportance, r.Importance)
	w.str(recKind, r.Kind)
	w.str(recExpires, r.Expires)
	w.strs(recSupersedes, r.Supersedes)
	w.str(recSupersededBy, r.SupersededBy)
	w.flag(recQuarantined, r.Quarantined)
	w.str(recCaller, r.Caller)
	w.time(recAffirmed, r.Affirmed)
	w.u64(recSeq, r.Seq)
	w.flag(recReference, r.Reference)
	w.strs(recTagOrigin, r.TagsOrigin)
	w.strs(recSplitInto, r.SplitInto)
	if r.Vectors != nil && r.Vectors.Len() > 0 {
		w.bytes(recVectors, r.Vectors.encode())
	}
	return w.buf
}

// decodeRecord reads an item body written by encodeRecord.
func decodeRecord(id string, body []byte) (*Record, error) { return decodeRecordIn(id, body, nil) }

// decodeRecordIn is decodeRecord interning through t.
func decodeRecordIn(id string, body []byte, t internTable) (*Record, error) {
	return decodeRecordScratch(id, body, t, nil)
}

// decodeRecordScratch is decodeRecordIn decoding int8 windows into
// *scratch when it is not nil: they then alias it, and the caller must
// give them up or copy them ([Vectors.own]) before the next decode.
func decodeRecordScratch(id string, body []byte, t internTable, scratch *[]int8) (*Record, error) {
	fr, err := newFieldReader(body)
	if err != nil {
		return nil, err
	}
	r := &Record{ID: id, Kind: KindFact}
	for tag, v, ok := fr.next(); ok; tag, v, ok = fr.next() {
		if tag == recVectors {
			if r.Vectors, err = decodeVectorsInto(v, scratch); err != nil {
				return nil, fmt.Errorf("record %s: %w", id, err)
			}
			continue
		}
		if err := r.setField(tag, v, t); err != nil {
			return nil, fmt.Errorf("record %s: %w", id, err)
		}
	}
	if fr.err != nil {
		return nil, fmt.Errorf("record %s: %w", id, fr.err)
	}
	return r, nil
}

func (r *Record) setField(tag uint64, v []byte, t internTable) (err error) {
	switch tag {
	case recText:
		r.Text = string(v)
	case recSource:
		r.Source = t.get(v)
	case recDiscovered:
		r.Discovered = t.get(v)
	case recCreated:
		r.Created, err = readTime(v)
	case recNamespace:
		r.Namespace = t.get(v)
	case recTag:
		r.Tags = append(r.Tags, t.get(v))
	case recImportance:
		r.Importance, err = readF64(v)
	case recKind:
		r.Kind = t.get(v)
	case recExpires:
		r.Expires = t.get(v)
	case recSupersedes:
		r.Supersedes = append(r.Supersedes, string(v))
	case recSupersededBy:
		r.SupersededBy = string(v)
	case recQuarantined:
		r.Quarantined = len(v) == 1 && v[0] == 1
	case recCaller:
		r.Caller = t.get(v)
	case recAffirmed:
		r.Affirmed, err = readTime(v)
	case recSeq:
		r.Seq, err = readU64(v)
	case recReference:
		r.Reference = len(v) == 1 && v[0] == 1
	case recTagOrigin:
		r.TagsOrigin = append(r.TagsOrigin, t.get(v))
	case recSplitInto:
		r.SplitInto = append(r.SplitInto, string(v))
	case recVectors:
		r.Vectors, err = decodeVectors(v)
	}
	return err
}
