package mcp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// MaxMessageBytes is the largest JSON-RPC message (one line of the stdio
// transport) the server reads. A memory is one short claim; even a
// memory_store_many of a thousand facts is well under 1 MiB. A longer line
// is skipped without being held in memory and answered with an error.
const MaxMessageBytes = 4 << 20

// errInvalidRequest is JSON-RPC's code for a message that is not a valid
// request.
const errInvalidRequest = -32600

// lineFramer cuts a byte stream into newline-terminated messages of at
// most max bytes. A longer message is read through and dropped, keeping
// at most max bytes (plus the reader's buffer) in memory, and reported as
// too long with its length.
type lineFramer struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineFramer(r io.Reader, max int) *lineFramer {
	return &lineFramer{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next message without its newline, or, for one over the
// limit, tooLong with its length in bytes. At the end of the stream it
// returns io.EOF; a last line without a newline is still a message.
func (f *lineFramer) next() (msg []byte, tooLong int64, err error) {
	f.buf = f.buf[:0]
	var n int64
	for {
		chunk, err := f.r.ReadSlice('\n')
		n += int64(len(chunk))
		if n <= int64(f.max)+1 { // +1: the newline does not count
			f.buf = append(f.buf, chunk...)
		}
		switch {
		case err == nil:
			if n > int64(f.max)+1 {
				return nil, n - 1, nil
			}
			return f.buf[:len(f.buf)-1], 0, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && n > 0:
			if n > int64(f.max) {
				return nil, n, nil
			}
			return f.buf, 0, nil
		default:
			return nil, 0, err
		}
	}
}

// lockedWriter serialises writes, so a notification never interleaves
// with a response (each is one Write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// tooLongResponse is the JSON-RPC error for a message over the limit. The
// request's id is unknown (its bytes were not kept), so it is null, as
// JSON-RPC prescribes when the id cannot be read.
func tooLongResponse(n int64, max int) []byte {
	resp := map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error": map[string]any{
			"code":    errInvalidRequest,
			"message": fmt.Sprintf("the message is %d bytes and the limit is %d: it was not read; store fewer or shorter memories per call", n, max),
		},
	}
	b, _ := json.Marshal(resp)
	return append(b, '\n')
}
