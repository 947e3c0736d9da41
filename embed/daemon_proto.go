package embed

// The embedding daemon's wire protocol, spoken over a Unix stream socket.
// Text goes in, vectors come out; no key or vault byte ever crosses it.
//
// Every message is a frame: a 4-byte little-endian body length n
// (1 ≤ n ≤ 64 MiB), then n bytes of body. A request body starts with an
// op byte, a response body with a status byte. Integers are little-endian
// u32, vectors are little-endian IEEE-754 float32, text is UTF-8.
//
//	request                          ok response (status 0x00, then)
//	0x01 hello  u16 version, JSON    JSON hello reply: the daemon's model
//	       {"model": ref, "pid": n}
//	0x02 docs   pin[32] u32 count,   u32 count, per doc: u32 tokens,
//	       count × (u32 len, text)   u32 windows, windows × (u32 start, u32 end),
//	                                 u32 dim, windows × dim × f32
//	0x03 query  pin[32] u32 len,     u32 dim, dim × f32
//	       text
//	0x04 status                      JSON [DaemonStatus]
//	0x05 stop                        (empty); the daemon then exits
//
// Other statuses: 0x01 error (UTF-8 message), 0x02 wrong model (JSON hello
// reply describing the model the daemon actually serves). A docs or query
// request names the pin of the model the client expects; the daemon
// answers "wrong model" rather than return vectors of another model, so a
// client never mixes vectors of two models. hello must come first on a
// connection that embeds; status and stop may come alone.
//
// Part of the protocol: do not change these numbers without bumping
// daemonProtoVersion.

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

const daemonProtoVersion = 1

const maxFrame = 64 << 20

// Request ops.
const (
	opHello  byte = 0x01
	opDocs   byte = 0x02
	opQuery  byte = 0x03
	opStatus byte = 0x04
	opStop   byte = 0x05
)

// Response statuses.
const (
	stOK         byte = 0x00
	stError      byte = 0x01
	stWrongModel byte = 0x02
)

// errFrame marks a malformed frame or body.
var errFrame = errors.New("embed: malformed daemon message")

// helloRequest is the JSON part of a hello.
type helloRequest struct {
	Model modelRef `json:"model"`
	PID   int      `json:"pid"`
}

// helloReply describes the daemon and the model it serves.
type helloReply struct {
	Version int       `json:"version"`
	PID     int       `json:"pid"`
	Model   modelRef  `json:"model"`
	Info    wireModel `json:"info"`
}

// wireModel is ModelInfo with the pin in hex.
type wireModel struct {
	Name        string      `json:"name"`
	SHA256      string      `json:"sha256"`
	Dim         int         `json:"dim"`
	MaxTokens   int         `json:"max_tokens"`
	QueryPrefix string      `json:"query_prefix"`
	Pooling     string      `json:"pooling"`
	Calibration Calibration `json:"calibration"`
}

func toWire(i ModelInfo) wireModel {
	return wireModel{i.Name, FormatPin(i.SHA256), i.Dim, i.MaxTokens, i.QueryPrefix, i.Pooling, i.Calibration}
}

func (w wireModel) info() (ModelInfo, error) {
	var pin [32]byte
	b, err := hex.DecodeString(w.SHA256)
	if err != nil || len(b) != 32 {
		return ModelInfo{}, fmt.Errorf("%w: model sha256 %q", errFrame, w.SHA256)
	}
	copy(pin[:], b)
	return ModelInfo{Name: w.Name, SHA256: pin, Dim: w.Dim, MaxTokens: w.MaxTokens,
		QueryPrefix: w.QueryPrefix, Pooling: w.Pooling, Calibration: w.Calibration}, nil
}

// writeFrame sends one frame.
func writeFrame(w io.Writer, body []byte) error {
	if len(body) == 0 || len(body) > maxFrame {
		return fmt.Errorf("%w: frame of %d bytes", errFrame, len(body))
	}
	buf := make([]byte, 4, 4+len(body))
	binary.LittleEndian.PutUint32(buf, uint32(len(body)))
	_, err := w.Write(append(buf, body...))
	return err
}

// readFrame receives one frame.
func readFrame(r io.Reader) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(head[:])
	if n == 0 || n > maxFrame {
		return nil, fmt.Errorf("%w: frame length %d", errFrame, n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// wireReader decodes a body front to back, remembering the first error.
type wireReader struct {
	b   []byte
	err error
}

func (r *wireReader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = errFrame
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *wireReader) u32() int {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return int(binary.LittleEndian.Uint32(b))
}

func (r *wireReader) text() string { return string(r.take(r.u32())) }

func (r *wireReader) pin() (p [32]byte) {
	copy(p[:], r.take(32))
	return p
}

func (r *wireReader) floats(n int) []float32 {
	b := r.take(4 * n)
	if b == nil {
		return nil
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// done reports a decoding error, or bytes left over.
func (r *wireReader) done() error {
	if r.err == nil && len(r.b) != 0 {
		r.err = errFrame
	}
	return r.err
}

func putU32(b []byte, v int) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v)) }

func putFloats(b []byte, v []float32) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// encodeDocsRequest and the functions below build and parse each body.
func encodeDocsRequest(pin [32]byte, texts []string) []byte {
	size := 1 + 32 + 4
	for _, t := range texts {
		size += 4 + len(t)
	}
	b := append(make([]byte, 0, size), opDocs)
	b = append(b, pin[:]...)
	b = putU32(b, len(texts))
	for _, t := range texts {
		b = putU32(b, len(t))
		b = append(b, t...)
	}
	return b
}

func decodeDocsRequest(body []byte) (pin [32]byte, texts []string, err error) {
	r := &wireReader{b: body}
	pin = r.pin()
	n := r.u32()
	if n > len(body) {
		return pin, nil, errFrame
	}
	texts = make([]string, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		texts = append(texts, r.text())
	}
	return pin, texts, r.done()
}

func encodeQueryRequest(pin [32]byte, text string) []byte {
	b := append(make([]byte, 0, 1+32+4+len(text)), opQuery)
	b = append(b, pin[:]...)
	b = putU32(b, len(text))
	return append(b, text...)
}

func decodeQueryRequest(body []byte) (pin [32]byte, text string, err error) {
	r := &wireReader{b: body}
	pin = r.pin()
	text = r.text()
	return pin, text, r.done()
}

func encodeDocsReply(docs []Document) []byte {
	b := putU32([]byte{stOK}, len(docs))
	for _, d := range docs {
		b = putU32(b, d.Tokens)
		b = putU32(b, len(d.Windows))
		for _, w := range d.Windows {
			b = putU32(putU32(b, w[0]), w[1])
		}
		dim := 0
		if len(d.Vectors) > 0 {
			dim = len(d.Vectors[0])
		}
		b = putU32(b, dim)
		for _, v := range d.Vectors {
			b = putFloats(b, v)
		}
	}
	return b
}

func decodeDocsReply(body []byte) ([]Document, error) {
	r := &wireReader{b: body}
	n := r.u32()
	if n > len(body) {
		return nil, errFrame
	}
	docs := make([]Document, n)
	for i := range docs {
		d := &docs[i]
		d.Tokens = r.u32()
		windows := r.u32()
		if r.err != nil || windows > MaxWindows {
			return nil, errFrame
		}
		d.Windows = make([][2]int, windows)
		for k := range d.Windows {
			d.Windows[k] = [2]int{r.u32(), r.u32()}
		}
		dim := r.u32()
		if dim > len(body) {
			return nil, errFrame
		}
		d.Vectors = make([][]float32, windows)
		for k := range d.Vectors {
			d.Vectors[k] = r.floats(dim)
		}
	}
	return docs, r.done()
}

func encodeQueryReply(v []float32) []byte {
	b := append(make([]byte, 0, 5+4*len(v)), stOK)
	return putFloats(putU32(b, len(v)), v)
}

func decodeQueryReply(body []byte) ([]float32, error) {
	r := &wireReader{b: body}
	dim := r.u32()
	if dim > len(body) {
		return nil, errFrame
	}
	v := r.floats(dim)
	return v, r.done()
}

// encodeJSON builds a body of a lead byte and a JSON value.
func encodeJSON(lead byte, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		// Only our own plain structs are encoded here.
		panic(fmt.Sprintf("embed: encode %T: %v", v, err))
	}
	return append([]byte{lead}, data...)
}

// encodeError builds an error reply.
func encodeError(err error) []byte { return append([]byte{stError}, err.Error()...) }

// encodeHello builds a hello request.
func encodeHello(ref modelRef, pid int) []byte {
	b := binary.LittleEndian.AppendUint16([]byte{opHello}, daemonProtoVersion)
	data, _ := json.Marshal(helloRequest{Model: ref, PID: pid})
	return append(b, data...)
}

// decodeHello parses a hello request body (after the op byte).
func decodeHello(body []byte) (helloRequest, error) {
	var h helloRequest
	if len(body) < 2 {
		return h, errFrame
	}
	if v := binary.LittleEndian.Uint16(body); v != daemonProtoVersion {
		return h, fmt.Errorf("embed: daemon speaks protocol %d, client %d", daemonProtoVersion, v)
	}
	if err := json.Unmarshal(body[2:], &h); err != nil {
		return h, fmt.Errorf("%w: hello: %v", errFrame, err)
	}
	return h, nil
}
