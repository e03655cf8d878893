package pgwire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxMessage bounds one backend message (a row with a large document is the
// largest mcpsum reads). A longer one ends the connection.
const MaxMessage = 64 << 20

// directAlloc is how much of a message is allocated before its bytes have
// arrived; a longer one grows as they do, so a server announcing a large
// message costs only what it actually sends.
const directAlloc = 64 << 10

// errProtocol marks a server that broke the protocol.
var errProtocol = errors.New("PostgreSQL protocol violation")

func protoErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errProtocol, fmt.Sprintf(format, args...))
}

// reader reads backend messages.
type reader struct {
	r   *bufio.Reader
	max int
}

func newReader(r io.Reader) *reader { return &reader{r: bufio.NewReaderSize(r, 8192), max: MaxMessage} }

// next returns the next message's type and body. The body is valid until the
// next call.
func (r *reader) next() (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r.r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := int64(binary.BigEndian.Uint32(hdr[1:])) // the length counts itself
	if n < 4 || n-4 > int64(r.max) {
		return 0, nil, protoErr("message %q announces %d bytes (at most %d)", hdr[0], n, r.max)
	}
	body, err := readBody(r.r, int(n-4))
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return hdr[0], body, nil
}

// readBody reads n bytes, allocating only as they arrive beyond directAlloc.
func readBody(r io.Reader, n int) ([]byte, error) {
	if n <= directAlloc {
		b := make([]byte, n)
		_, err := io.ReadFull(r, b)
		return b, err
	}
	b := make([]byte, 0, directAlloc)
	for len(b) < n {
		chunk := min(n-len(b), max(cap(b)-len(b), directAlloc))
		if cap(b)-len(b) < chunk {
			b = append(b, make([]byte, chunk)...)[:len(b)]
		}
		m, err := io.ReadFull(r, b[len(b):len(b)+chunk])
		b = b[:len(b)+m]
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

// cursor reads the fields of one message with their bounds checked.
type cursor struct {
	b   []byte
	err error
}

func (c *cursor) fail(what string) {
	if c.err == nil {
		c.err = protoErr("message too short for its %s", what)
	}
}

func (c *cursor) bytes(n int, what string) []byte {
	if c.err != nil || n < 0 || n > len(c.b) {
		c.fail(what)
		return nil
	}
	v := c.b[:n:n]
	c.b = c.b[n:]
	return v
}

func (c *cursor) int32(what string) int32 {
	b := c.bytes(4, what)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

func (c *cursor) int16(what string) int16 {
	b := c.bytes(2, what)
	if b == nil {
		return 0
	}
	return int16(binary.BigEndian.Uint16(b))
}

func (c *cursor) cstring(what string) string {
	if c.err != nil {
		return ""
	}
	i := strings.IndexByte(string(c.b), 0)
	if i < 0 {
		c.fail(what)
		return ""
	}
	s := string(c.b[:i])
	c.b = c.b[i+1:]
	return s
}

// column is one column of a RowDescription.
type column struct {
	name string
	oid  uint32
}

// parseRowDescription reads a RowDescription ('T').
func parseRowDescription(body []byte) ([]column, error) {
	c := &cursor{b: body}
	n := int(c.int16("column count"))
	if n < 0 || n*19 > len(c.b) { // each column takes at least 19 bytes
		return nil, protoErr("row description of %d columns in %d bytes", n, len(body))
	}
	cols := make([]column, n)
	for i := range cols {
		cols[i].name = c.cstring("column name")
		c.int32("table")
		c.int16("attribute")
		cols[i].oid = uint32(c.int32("type"))
		c.int16("type size")
		c.int32("type modifier")
		c.int16("format")
	}
	if c.err == nil && len(c.b) != 0 {
		c.err = protoErr("%d bytes after a row description", len(c.b))
	}
	return cols, c.err
}

// parseDataRow reads a DataRow ('D') of want columns; a NULL is nil, an
// empty value a non-nil empty slice. The values share body.
func parseDataRow(body []byte, want int) ([][]byte, error) {
	c := &cursor{b: body}
	n := int(c.int16("column count"))
	if c.err == nil && n != want {
		return nil, protoErr("a row of %d columns, described as %d", n, want)
	}
	vals := make([][]byte, n)
	for i := range vals {
		l := c.int32("value length")
		if l == -1 {
			continue
		}
		vals[i] = c.bytes(int(l), "value")
	}
	if c.err == nil && len(c.b) != 0 {
		c.err = protoErr("%d bytes after a row", len(c.b))
	}
	return vals, c.err
}

// parseFields reads an ErrorResponse or NoticeResponse: code byte, string,
// ..., 0.
func parseFields(body []byte) (map[byte]string, error) {
	c := &cursor{b: body}
	f := map[byte]string{}
	for {
		code := c.bytes(1, "field code")
		if c.err != nil {
			return nil, c.err
		}
		if code[0] == 0 {
			return f, nil
		}
		f[code[0]] = c.cstring("field")
	}
}

// clean makes server text safe for a message: control characters and
// invalid UTF-8 become U+FFFD, and it is cut at 300 bytes.
func clean(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i >= 300 {
			b.WriteString("…")
			break
		}
		if r == utf8.RuneError || r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

// writer builds frontend messages.
type writer struct{ b []byte }

// begin starts a message of type t (0: the untyped startup messages) and
// returns where its length goes, for end.
func (w *writer) begin(t byte) int {
	if t != 0 {
		w.b = append(w.b, t)
	}
	at := len(w.b)
	w.b = append(w.b, 0, 0, 0, 0)
	return at
}

// end fills in the length of the message whose length goes at at.
func (w *writer) end(at int) { binary.BigEndian.PutUint32(w.b[at:], uint32(len(w.b)-at)) }

func (w *writer) int32(v int32) { w.b = binary.BigEndian.AppendUint32(w.b, uint32(v)) }
func (w *writer) int16(v int16) { w.b = binary.BigEndian.AppendUint16(w.b, uint16(v)) }
func (w *writer) str(s string)  { w.b = append(append(w.b, s...), 0) }
