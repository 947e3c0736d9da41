package embed

import (
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The bundled model is 15 MB of int8 rows in the binary's read-only data,
// read one 384-byte row per word. A page fault on a file mapping maps the
// pages around it as well (fault-around, 64 kB by default, which
// MADV_RANDOM does not turn off), so a long-lived process that embeds a
// few hundred queries ends up with most of the model resident: measured,
// 12.6 MB after 100 queries. [KeepStaticModelSmall] makes the bundled
// model copy each row it reads into a small cache and then drop the
// model's pages from this process, so what stays resident is the rows in
// use, not the neighbourhood of every row ever read. The dropped pages stay
// in the page cache (shared by every process running this binary), so a
// later miss costs a minor fault, not a disk read.

// rowCacheRows bounds the cache: 4,096 rows of 384 bytes is 1.5 MB, a few
// thousand distinct query words and n-gram buckets.
const rowCacheRows = 4096

// keepSmall is set by [KeepStaticModelSmall].
var keepSmall atomic.Bool

// KeepStaticModelSmall turns on the row cache and page dropping of the
// bundled model for this process (a server; a bulk import reads most rows
// anyway and gains nothing).
func KeepStaticModelSmall() { keepSmall.Store(true) }

// rowCache holds copies of the bundled model's rows; nil for other models
// (whose bytes are on the heap, where dropping pages would destroy them).
type rowCache struct {
	file string // the mapped model bytes
	mu   sync.RWMutex
	rows map[int]string
}

func newRowCache(file string) *rowCache { return &rowCache{file: file, rows: map[int]string{}} }

// row returns row i of table (dim bytes), keyed by key in the cache, and
// sets *missed when it had to read the mapping.
func (c *rowCache) row(key int, table string, i, dim int, missed *bool) string {
	if c == nil || !keepSmall.Load() {
		return table[i*dim : (i+1)*dim]
	}
	c.mu.RLock()
	r, ok := c.rows[key]
	c.mu.RUnlock()
	if ok {
		return r
	}
	*missed = true
	r = strings.Clone(table[i*dim : (i+1)*dim])
	c.mu.Lock()
	if len(c.rows) < rowCacheRows {
		c.rows[key] = r
	}
	c.mu.Unlock()
	return r
}

// settle drops the model's pages from this process after a text that
// read the mapping.
func (c *rowCache) settle(missed bool) {
	if c != nil && missed && keepSmall.Load() {
		dropPages(c.file)
	}
}

// pagesWithin returns the whole pages inside s: their start and length.
func pagesWithin(s string, page uintptr) (uintptr, uintptr) {
	start := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	end := (start + uintptr(len(s))) &^ (page - 1)
	start = (start + page - 1) &^ (page - 1)
	if end <= start {
		return 0, 0
	}
	return start, end - start
}
