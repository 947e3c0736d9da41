package devsync

import (
	"bytes"
	"crypto/hmac"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// <device>.log (FORMAT.md 10.3): a 92-byte header, then frames.
//
//	header: magic "CMPSLOG1" | version u16 | flags u16 | folder id 16 |
//	        device id 16 | generation u64 | written i64 | HMAC 32
//	frame:  N u32 | CRC-32C(N) u32 | nonce 24 | ciphertext | tag 16
//	        AAD = 21 | version u16 | folder id | device id | generation |
//	              seq u64 | chain_seq
//	plain:  op u8 | device id 16 | wall u64 | logical u32 | target 16 |
//	        P u32 | payload P
//
// Part of the format: do not change.
const (
	logMagic      = "CMPSLOG1"
	logDomain     = "compartment sync log v1\x00"
	logHeaderSize = 92
	frameHead     = 8
	opHeadSize    = 49
	minSealed     = nonceSize + tagSize
	maxSealed     = 16 << 20
)

// logState is one log as read: its header, its whole frames, and the MAC
// chain after each.
type logState struct {
	device     [16]byte
	generation uint64
	written    time.Time
	headerMAC  [macSize]byte
	ops        []Op
	// chains[k] is chain_k: chains[0] from the header, chains[len(ops)]
	// the chain after the last whole frame.
	chains [][macSize]byte
	end    int64 // offset just past the last whole frame
	size   int64 // bytes read
	// partial: bytes after the last whole frame (a copy in progress, or
	// a torn append).
	partial bool
	// lastClock is the greatest clock of the log's operations.
	lastClock Clock
}

func (l *logState) frames() uint64       { return uint64(len(l.ops)) }
func (l *logState) chain() [macSize]byte { return l.chains[len(l.chains)-1] }

func encodeLogHeader(k *folderKeys, device [16]byte, gen uint64, written time.Time) ([]byte, [macSize]byte) {
	b := append([]byte(nil), logMagic...)
	b = binary.LittleEndian.AppendUint16(b, formatVersion)
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = append(b, k.folderID[:]...)
	b = append(b, device[:]...)
	b = binary.LittleEndian.AppendUint64(b, gen)
	b = binary.LittleEndian.AppendUint64(b, uint64(written.UnixNano()))
	mac := hmacSum(k.roster, []byte(logDomain), b)
	return append(b, mac[:]...), mac
}

func firstChain(k *folderKeys, headerMAC [macSize]byte) [macSize]byte {
	return hmacSum(k.chain, headerMAC[:])
}

func nextChain(k *folderKeys, chain [macSize]byte, tag []byte) [macSize]byte {
	return hmacSum(k.chain, chain[:], tag)
}

func frameAAD(k *folderKeys, device [16]byte, gen, seq uint64, chain [macSize]byte) []byte {
	aad := make([]byte, 0, 83)
	aad = append(aad, roleFrame)
	aad = binary.LittleEndian.AppendUint16(aad, formatVersion)
	aad = append(aad, k.folderID[:]...)
	aad = append(aad, device[:]...)
	aad = binary.LittleEndian.AppendUint64(aad, gen)
	aad = binary.LittleEndian.AppendUint64(aad, seq)
	return append(aad, chain[:]...)
}

func encodeOp(o *Op) []byte {
	b := make([]byte, 0, opHeadSize+len(o.Payload))
	b = append(b, byte(o.Kind))
	b = append(b, o.Device[:]...)
	b = binary.LittleEndian.AppendUint64(b, o.Clock.Wall)
	b = binary.LittleEndian.AppendUint32(b, o.Clock.Logical)
	b = append(b, o.Target[:]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(o.Payload)))
	return append(b, o.Payload...)
}

func decodeOp(b []byte) (Op, error) {
	if len(b) < opHeadSize {
		return Op{}, fmt.Errorf("operation of %d bytes", len(b))
	}
	o := Op{Kind: OpKind(b[0])}
	copy(o.Device[:], b[1:17])
	o.Clock = Clock{Wall: binary.LittleEndian.Uint64(b[17:]), Logical: binary.LittleEndian.Uint32(b[25:])}
	copy(o.Target[:], b[29:45])
	if n := binary.LittleEndian.Uint32(b[45:]); uint64(n) != uint64(len(b)-opHeadSize) {
		return Op{}, fmt.Errorf("payload length %d in an operation of %d bytes", n, len(b))
	}
	if len(b) > opHeadSize {
		o.Payload = b[opHeadSize:]
	}
	if err := o.checkPayload(); err != nil {
		return Op{}, err
	}
	return o, nil
}

// sealFrame returns frame seq of a log and its tag.
func sealFrame(k *folderKeys, device [16]byte, gen, seq uint64, chain [macSize]byte, o *Op) ([]byte, []byte, error) {
	sealed, err := seal(k.frame, encodeOp(o), frameAAD(k, device, gen, seq, chain))
	if err != nil {
		return nil, nil, err
	}
	if len(sealed) > maxSealed {
		return nil, nil, fmt.Errorf("devsync: operation of %d bytes is too large for a log frame", len(sealed))
	}
	f := make([]byte, frameHead, frameHead+len(sealed))
	binary.LittleEndian.PutUint32(f, uint32(len(sealed)))
	binary.LittleEndian.PutUint32(f[4:], crc(f[:4]))
	f = append(f, sealed...)
	return f, sealed[len(sealed)-tagSize:], nil
}

// errIncomplete: a log whose header has not arrived whole yet (a sync
// engine still copying a new file); it is read once it has.
var errIncomplete = errors.New("devsync: a log still being copied")

// refusef makes a refusal: a sentence a person can act on, wrapping
// ErrRefused.
func refusef(path, format string, a ...any) error {
	return fmt.Errorf("%w: %s %s; nothing was merged from it", ErrRefused, path, fmt.Sprintf(format, a...))
}

// readLog reads and checks the log at path, written by device, up to its
// last whole frame.
func readLog(path string, k *folderKeys, device [16]byte) (*logState, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("devsync: read %s: %w", path, err)
	}
	return parseLog(path, b, k, device)
}

func parseLog(path string, b []byte, k *folderKeys, device [16]byte) (*logState, error) {
	if len(b) < logHeaderSize {
		if bytes.HasPrefix([]byte(logMagic), b[:min(len(b), 8)]) {
			// A log whose header has not been copied whole yet.
			return nil, fmt.Errorf("%w: %s (%d bytes)", errIncomplete, path, len(b))
		}
		return nil, refusef(path, "is not a compartment device log")
	}
	if !bytes.Equal(b[:8], []byte(logMagic)) {
		return nil, refusef(path, "is not a compartment device log")
	}
	if v := binary.LittleEndian.Uint16(b[8:]); v != formatVersion {
		return nil, refusef(path, "has log format version %d, which this build does not know: update compartment", v)
	}
	l := &logState{}
	copy(l.device[:], b[28:44])
	copy(l.headerMAC[:], b[60:92])
	mac := hmacSum(k.roster, []byte(logDomain), b[:60])
	switch {
	case !hmac.Equal(mac[:], l.headerMAC[:]):
		return nil, refusef(path, "fails its MAC (it was altered, or it belongs to another sync folder)")
	case binary.LittleEndian.Uint16(b[10:]) != 0 || !bytes.Equal(b[12:28], k.folderID[:]) || l.device != device:
		return nil, refusef(path, "belongs to another folder or device than its name says")
	}
	l.generation = binary.LittleEndian.Uint64(b[44:])
	l.written = time.Unix(0, int64(binary.LittleEndian.Uint64(b[52:]))).UTC()
	l.chains = [][macSize]byte{firstChain(k, l.headerMAC)}
	l.size = int64(len(b))
	off := int64(logHeaderSize)
	for seq := uint64(0); ; seq++ {
		rest := b[off:]
		if len(rest) == 0 {
			break
		}
		if len(rest) < frameHead {
			l.partial = true
			break
		}
		n := binary.LittleEndian.Uint32(rest)
		if binary.LittleEndian.Uint32(rest[4:]) != crc(rest[:4]) || n < minSealed || n > maxSealed {
			return nil, refusef(path, "is damaged at operation %d (offset %d: a bad frame length)", seq, off)
		}
		if uint64(len(rest)-frameHead) < uint64(n) {
			l.partial = true
			break
		}
		sealed := rest[frameHead : frameHead+int(n)]
		chain := l.chains[seq]
		plain, err := open(k.frame, sealed, frameAAD(k, device, l.generation, seq, chain))
		if err != nil {
			return nil, refusef(path, "fails its MAC at operation %d (offset %d): it was altered, spliced or damaged", seq, off)
		}
		o, err := decodeOp(plain)
		if err != nil {
			return nil, refusef(path, "has a malformed operation %d: %v", seq, err)
		}
		if o.Device != device {
			return nil, refusef(path, "holds operation %d stamped by another device", seq)
		}
		l.ops = append(l.ops, o)
		l.lastClock = l.lastClock.Max(o.Clock)
		l.chains = append(l.chains, nextChain(k, chain, sealed[len(sealed)-tagSize:]))
		off += frameHead + int64(n)
	}
	l.end = off
	return l, nil
}

// ownLog is this device's log: the one file in the folder it writes.
// Every method runs under the vault's exclusive writer lock, which every
// process of this device takes before writing, so appends never interleave.
type ownLog struct {
	dir    string
	device [16]byte
	k      *folderKeys
	st     *logState
	fi     os.FileInfo
	// minGen is the generation a log created afresh starts at: past any
	// generation this device has recorded of its own log, so a deleted
	// log that is made again is not taken for an older copy.
	minGen uint64
}

func (o *ownLog) path() string { return logPath(o.dir, o.device) }

// load brings the cached state up to date with the file (another process
// of this device may have appended), creating the log if it is missing and
// cutting a torn append off its end.
func (o *ownLog) load() error {
	fi, err := os.Stat(o.path())
	if errors.Is(err, os.ErrNotExist) {
		return o.create(max(1, o.minGen), nil)
	}
	if err != nil {
		return fmt.Errorf("devsync: %w", err)
	}
	if o.st != nil && o.fi != nil && os.SameFile(fi, o.fi) && fi.Size() == o.st.size {
		return nil
	}
	st, err := readLog(o.path(), o.k, o.device)
	if err != nil {
		return err
	}
	if st.partial {
		if err := os.Truncate(o.path(), st.end); err != nil {
			return fmt.Errorf("devsync: cut a torn append off %s: %w", o.path(), err)
		}
		st.partial, st.size = false, st.end
		if fi, err = os.Stat(o.path()); err != nil {
			return fmt.Errorf("devsync: %w", err)
		}
	}
	o.st, o.fi = st, fi
	return nil
}

// create writes the log afresh as generation gen holding ops (a new log,
// or a rewrite), atomically.
func (o *ownLog) create(gen uint64, ops []Op) error {
	hdr, mac := encodeLogHeader(o.k, o.device, gen, time.Now())
	st := &logState{device: o.device, generation: gen, headerMAC: mac, chains: [][macSize]byte{firstChain(o.k, mac)}}
	buf := bytes.NewBuffer(hdr)
	for i := range ops {
		if err := st.add(o.k, &ops[i], buf); err != nil {
			return err
		}
	}
	st.end, st.size = int64(buf.Len()), int64(buf.Len())
	if err := writeAtomic(o.path(), tmpPath(o.dir, o.device, "log"), buf.Bytes()); err != nil {
		return fmt.Errorf("devsync: write %s: %w", o.path(), err)
	}
	fi, err := os.Stat(o.path())
	if err != nil {
		return fmt.Errorf("devsync: %w", err)
	}
	o.st, o.fi = st, fi
	return nil
}

// add seals op as the log's next frame into w and records it.
func (l *logState) add(k *folderKeys, op *Op, w io.Writer) error {
	seq := l.frames()
	f, tag, err := sealFrame(k, l.device, l.generation, seq, l.chain(), op)
	if err != nil {
		return err
	}
	if _, err := w.Write(f); err != nil {
		return err
	}
	l.chains = append(l.chains, nextChain(k, l.chain(), tag))
	l.ops = append(l.ops, *op)
	l.lastClock = l.lastClock.Max(op.Clock)
	return nil
}

// append writes ops at the end of the log and fsyncs: when it returns,
// they are durable.
func (o *ownLog) append(ops []Op) error {
	if len(ops) == 0 {
		return nil
	}
	if err := o.load(); err != nil {
		return err
	}
	before := *o.st
	before.ops = o.st.ops[:len(o.st.ops):len(o.st.ops)]
	before.chains = o.st.chains[:len(o.st.chains):len(o.st.chains)]
	var buf bytes.Buffer
	for i := range ops {
		if err := o.st.add(o.k, &ops[i], &buf); err != nil {
			*o.st = before
			return err
		}
	}
	err := o.write(before.end, buf.Bytes())
	if err != nil {
		*o.st = before
		o.fi = nil // read it again next time
		return fmt.Errorf("devsync: append to %s: %w", o.path(), err)
	}
	o.st.end += int64(buf.Len())
	o.st.size = o.st.end
	if fi, err := os.Stat(o.path()); err == nil {
		o.fi = fi
	}
	return nil
}

func (o *ownLog) write(at int64, b []byte) error {
	f, err := os.OpenFile(o.path(), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(b, at); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// redact rewrites the log without the content of the given targets: each
// store, edit or link frame about one becomes a redacted frame with the
// same clock and target, under the next generation (FORMAT.md 10.5).
func (o *ownLog) redact(targets map[[16]byte]bool) (bool, error) {
	if err := o.load(); err != nil {
		return false, err
	}
	ops := append([]Op(nil), o.st.ops...)
	changed := false
	for i := range ops {
		if ops[i].Kind.carriesContent() && targets[ops[i].Target] {
			ops[i].Kind, ops[i].Payload = OpRedacted, nil
			changed = true
		}
	}
	if !changed {
		return false, nil
	}
	return true, o.create(o.st.generation+1, ops)
}
