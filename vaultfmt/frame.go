package vaultfmt

// A frame, in the payload and in the journal alike (FORMAT.md §2.5):
//
//	 0            4            8                32                       8+N
//	+------------+------------+----------------+------------------------+
//	| N u32      | CRC-32C of | nonce (24)     | ciphertext || tag (16) |
//	|            | the 4 N    |                |                        |
//	|            | bytes      |<------------- sealed body, N bytes ----->|
//	+------------+------------+----------------+------------------------+
//
// The CRC covers only the length, so a damaged length is told apart from a
// short write: a reader trusts N only once its CRC matches, and then a body
// shorter than N at the end of the file is a crash, never anything else.

import (
	"encoding/binary"
	"hash/crc32"
)

// Frame limits. Part of the format: do not change.
const (
	frameHeaderSize = 8
	maxFrameBody    = 64 << 20 // a declared length above this is damage
	minFrameBody    = sealOverhead
)

// appendFrame appends the frame header and the sealed body to dst.
func appendFrame(dst, sealed []byte) []byte {
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(sealed)))
	dst = append(dst, n[:]...)
	dst = binary.LittleEndian.AppendUint32(dst, crc32.Checksum(n[:], crcTable))
	return append(dst, sealed...)
}

// rawFrame is a frame found by [scanFrames], not yet opened.
type rawFrame struct {
	off  int64  // file offset of the frame header
	body []byte // the sealed body (aliases the scanned buffer)
}

// size is the frame's length on disk.
func (f rawFrame) size() int64 { return frameHeaderSize + int64(len(f.body)) }

// scanFrames splits buf, which starts at file offset base, into frames.
// It returns the complete frames and, when the bytes end inside a frame
// whose length checked out (or inside a frame header), the offset where
// that torn tail begins; -1 when the last frame is complete. Any frame with
// a bad length checksum or an absurd length is damage, wherever it is.
// firstFrame numbers the frames in errors. With zeroTail, bytes that are
// all zero from a frame boundary to the end are a torn tail too (see
// [allZero]); only the journal, the one region written in place, uses it.
func scanFrames(buf []byte, base int64, region string, firstFrame int, zeroTail bool) ([]rawFrame, int64, error) {
	var frames []rawFrame
	off := 0
	for off < len(buf) {
		num, at := firstFrame+len(frames), base+int64(off)
		rest := buf[off:]
		if len(rest) < frameHeaderSize || (zeroTail && allZero(rest)) {
			return frames, at, nil
		}
		if binary.LittleEndian.Uint32(rest[4:]) != crc32.Checksum(rest[:4], crcTable) {
			return frames, -1, corruptf(region, at, num, "frame length checksum mismatch")
		}
		n := binary.LittleEndian.Uint32(rest)
		if n < minFrameBody || n > maxFrameBody {
			return frames, -1, corruptf(region, at, num, "frame length %d outside %d..%d", n, minFrameBody, maxFrameBody)
		}
		if int64(len(rest)) < frameHeaderSize+int64(n) {
			return frames, at, nil
		}
		frames = append(frames, rawFrame{off: at, body: rest[frameHeaderSize : frameHeaderSize+int(n)]})
		off += frameHeaderSize + int(n)
	}
	return frames, -1, nil
}

// allZero reports whether b holds only zero bytes. A journal tail of zeros
// is what a filesystem shows after power loss when the file's size reached
// the disk before its data: an unacknowledged write, treated as torn.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
