package pgwire

import (
	"bytes"
	"testing"
)

// FuzzReader feeds arbitrary server bytes to the message reader and to
// every parser of a message body: none may panic, allocate past the bound,
// or return a value outside its message.
func FuzzReader(f *testing.F) {
	f.Add([]byte("Z\x00\x00\x00\x05I"))
	f.Add([]byte("T\x00\x00\x00\x1d\x00\x01doc\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x11\xff\xff\xff\xff\xff\xff\x00\x00"))
	f.Add([]byte("D\x00\x00\x00\x0e\x00\x01\x00\x00\x00\x04\\x00"))
	f.Add([]byte("E\x00\x00\x00\x15SERROR\x00C42P01\x00Mx\x00\x00"))
	f.Add([]byte("R\x7f\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := newReader(bytes.NewReader(data))
		r.max = 1 << 16
		for {
			typ, body, err := r.next()
			if err != nil {
				return
			}
			if len(body) > r.max {
				t.Fatalf("a body of %d bytes past the bound %d", len(body), r.max)
			}
			switch typ {
			case 'T':
				parseRowDescription(body)
			case 'D':
				if vals, err := parseDataRow(body, 1); err == nil {
					for _, v := range vals {
						if v != nil {
							decodeBytea(v)
						}
					}
				}
			case 'E', 'N':
				if f, err := parseFields(body); err == nil {
					_ = pgError(f).Error()
				}
			}
		}
	})
}
