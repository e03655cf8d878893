package pgwire

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Result is what a statement returned: its rows' values in text form (a
// bytea column decoded to its bytes; NULL is nil) and its command tag.
type Result struct {
	Columns []string
	Rows    [][][]byte
	Tag     string // e.g. "INSERT 0 1"
}

// maxStmts bounds the named statements of a connection; more are parsed
// unnamed each time.
const maxStmts = 64

// maxResult bounds the bytes of one result's rows.
const maxResult = MaxMessage

const oidBytea = 17

// Query runs sql with args ($1, $2, ...): a string is sent as text, a
// []byte as bytea, an int64 or int as bigint, nil (and a nil []byte) as
// NULL. With no args it uses the simple protocol, so sql may hold several
// statements.
func (c *Conn) Query(ctx context.Context, sql string, args ...any) (*Result, error) {
	if strings.IndexByte(sql, 0) >= 0 {
		return nil, errors.New("the statement holds a NUL byte")
	}
	c.w.b = c.w.b[:0]
	c.using, c.pending = "", ""
	if len(args) == 0 {
		at := c.w.begin('Q')
		c.w.str(sql)
		c.w.end(at)
	} else if err := c.extended(sql, args); err != nil {
		return nil, err
	}
	var res *Result
	err := c.guard(ctx, func() error {
		if err := c.flush(); err != nil {
			return err
		}
		var err error
		res, err = c.results()
		return err
	})
	c.pending = ""
	// A named statement the server lost (DEALLOCATE, DISCARD) or whose
	// result changed with the schema is parsed afresh next time.
	var pe *Error
	if errors.As(err, &pe) && (pe.Code == "26000" || pe.Code == "0A000") {
		delete(c.stmts, c.using)
	}
	return res, err
}

// extended writes Parse, Bind, Describe, Execute and Sync of the unnamed
// statement and portal.
func (c *Conn) extended(sql string, args []any) error {
	if len(args) > 65535 {
		return fmt.Errorf("%d parameters (at most 65535)", len(args))
	}
	oids := make([]int32, len(args))
	vals := make([][]byte, len(args))
	formats := make([]int16, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case nil:
		case string:
			if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
				return fmt.Errorf("parameter $%d is not text (invalid UTF-8 or a NUL byte): send bytes as []byte", i+1)
			}
			vals[i] = []byte(v)
		case []byte: // nil is NULL, as pgx had it; empty is empty
			oids[i], formats[i] = oidBytea, 1
			vals[i] = v
		case int64:
			oids[i], vals[i] = 20, strconv.AppendInt(nil, v, 10)
		case int:
			oids[i], vals[i] = 20, strconv.AppendInt(nil, int64(v), 10)
		default:
			return fmt.Errorf("parameter $%d has type %T (want string, []byte, int64, int or nil)", i+1, a)
		}
	}
	// A statement is parsed once per connection under a name of its own
	// (as pgx's statement cache did): the server plans it once.
	key := sql + "\x00" + fmt.Sprint(oids)
	c.using = key
	name, cached := c.stmts[key]
	if !cached {
		if len(c.stmts) < maxStmts {
			c.nstmt++
			name = "pgwire_" + strconv.Itoa(c.nstmt)
			c.pending, c.pendingName = key, name
		}
		at := c.w.begin('P')
		c.w.str(name)
		c.w.str(sql)
		c.w.int16(int16(uint16(len(args))))
		for _, o := range oids {
			c.w.int32(o)
		}
		c.w.end(at)
	}
	at := c.w.begin('B')
	c.w.str("")
	c.w.str(name)
	c.w.int16(int16(uint16(len(args))))
	for _, f := range formats {
		c.w.int16(f)
	}
	c.w.int16(int16(uint16(len(args))))
	for i, v := range vals {
		if b, ok := args[i].([]byte); args[i] == nil || ok && b == nil {
			c.w.int32(-1)
			continue
		}
		if len(v) > MaxMessage {
			return fmt.Errorf("parameter $%d has %d bytes (at most %d)", i+1, len(v), MaxMessage)
		}
		c.w.int32(int32(len(v)))
		c.w.b = append(c.w.b, v...)
	}
	c.w.int16(0) // every result column in text
	c.w.end(at)
	at = c.w.begin('D')
	c.w.b = append(c.w.b, 'P')
	c.w.str("")
	c.w.end(at)
	at = c.w.begin('E')
	c.w.str("")
	c.w.int32(0)
	c.w.end(at)
	at = c.w.begin('S')
	c.w.end(at)
	return nil
}

// results reads the answer up to ReadyForQuery. The first ErrorResponse is
// the error; the rows of the last statement are the result.
func (c *Conn) results() (*Result, error) {
	res := &Result{}
	var cols []column
	var perr error
	size := 0
	for {
		t, body, err := c.rd.next()
		if err != nil {
			return nil, err
		}
		switch t {
		case '1': // ParseComplete: the named statement exists from now on
			if c.pending != "" {
				if c.stmts == nil {
					c.stmts = map[string]string{}
				}
				c.stmts[c.pending] = c.pendingName
				c.pending = ""
			}
		case '2', '3', 'n', 's', 'I', 'N', 'A', 'K':
			// ParseComplete, BindComplete, CloseComplete, NoData,
			// PortalSuspended, EmptyQueryResponse, NoticeResponse,
			// NotificationResponse, BackendKeyData: nothing to keep.
		case 'S':
			if err := c.parameter(body); err != nil {
				return nil, err
			}
		case 'T':
			if cols, err = parseRowDescription(body); err != nil {
				return nil, err
			}
			res.Columns, res.Rows, size = make([]string, len(cols)), nil, 0
			for i, col := range cols {
				res.Columns[i] = col.name
			}
		case 'D':
			if cols == nil {
				return nil, protoErr("a row before its description")
			}
			if size += len(body); size > maxResult {
				return nil, protoErr("a result of more than %d bytes", maxResult)
			}
			row, err := parseDataRow(body, len(cols))
			if err != nil {
				return nil, err
			}
			for i, v := range row {
				if v != nil && cols[i].oid == oidBytea {
					if row[i], err = decodeBytea(v); err != nil {
						return nil, err
					}
				}
			}
			res.Rows = append(res.Rows, row)
		case 'C':
			cur := &cursor{b: body}
			res.Tag = clean(cur.cstring("command tag"))
			if cur.err != nil {
				return nil, cur.err
			}
			cols = nil
		case 'E':
			f, err := parseFields(body)
			if err != nil {
				return nil, err
			}
			if perr == nil {
				perr = pgError(f)
			}
			if f['V'] == "FATAL" || f['V'] == "PANIC" || f['S'] == "FATAL" || f['S'] == "PANIC" {
				return nil, perr // the server closes the connection
			}
		case 'Z':
			if err := c.ready(body); err != nil {
				return nil, err
			}
			if perr != nil {
				return nil, perr
			}
			return res, nil
		default:
			return nil, protoErr("unexpected message %q in a result", t)
		}
	}
}

// decodeBytea reads bytea's text output: hex (\x...) or, with
// bytea_output=escape, octal escapes.
func decodeBytea(v []byte) ([]byte, error) {
	if h, ok := strings.CutPrefix(string(v), `\x`); ok {
		b, err := hex.DecodeString(h)
		if err != nil {
			return nil, protoErr("a bytea value that is not hex")
		}
		return b, nil
	}
	out := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			out = append(out, v[i])
			continue
		}
		if i+1 < len(v) && v[i+1] == '\\' {
			out = append(out, '\\')
			i++
			continue
		}
		if i+4 > len(v) {
			return nil, protoErr("a bytea escape cut short")
		}
		n, err := strconv.ParseUint(string(v[i+1:i+4]), 8, 8)
		if err != nil {
			return nil, protoErr("a bytea escape that is not octal")
		}
		out = append(out, byte(n))
		i += 3
	}
	return out, nil
}

// Exec runs sql and returns its command tag.
func (c *Conn) Exec(ctx context.Context, sql string, args ...any) (string, error) {
	res, err := c.Query(ctx, sql, args...)
	if err != nil {
		return "", err
	}
	return res.Tag, nil
}

// QueryRow runs sql and returns its first row's values (ErrNoRows when it
// returned none).
func (c *Conn) QueryRow(ctx context.Context, sql string, args ...any) ([][]byte, error) {
	return firstRow(c.Query(ctx, sql, args...))
}

func firstRow(res *Result, err error) ([][]byte, error) {
	if err != nil {
		return nil, err
	}
	if len(res.Rows) == 0 {
		return nil, ErrNoRows
	}
	return res.Rows[0], nil
}
