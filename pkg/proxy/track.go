package proxy

import (
	"errors"
	"fmt"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/pkg/mcpwire"
)

// tracker follows the JSON grammar of a streamed response byte by byte, so
// the proxy forwards exactly one checked JSON-RPC message per line without
// holding the line: it knows where the top-level object ends (anything but
// white space after it is an error), refuses a top-level member that
// repeats (a second "result" a client would read instead of the first),
// swaps the result's _meta serverInfo for the locked one, and can close
// what is open at any point so an aborted line still ends as valid JSON.
//
// It starts right before the value of the top-level member "result" (the
// head before it has been scanned) and is fed the rest of the line in
// chunks. Output is produced through emit; the final '}' of the top-level
// object is never emitted (the caller appends the id member and the brace).
type tracker struct {
	stack []byte // '{' or '[' per open container; stack[0] is the message object
	st    tstate
	lit   string // what is left of true, false or null
	hex   int    // hex digits left in a \u escape
	isKey bool   // the current string is a member name

	key      []byte // the member name being read (raw, bounded)
	keyLong  bool
	topKeys  map[string]bool // member names of the message object so far
	curTop   string          // the top-level member whose value is being read
	metaNext bool            // the next value is the result's _meta
	inMeta   bool            // inside the result's _meta object (depth 3)
	seenMeta bool
	seenInfo bool
	typeIns  bool // resultType was inserted in the result object

	// checkInput refuses a result asking for client input (a resultType
	// other than "complete", or an inputRequests member): such a result
	// must be checked whole (checkInputRequests) or bridged, which a
	// streamed line cannot be. typeNext: the next value is the result's
	// resultType; typeVal: its string is being read (into key).
	checkInput bool
	typeNext   bool
	typeVal    bool

	replace []byte // the locked serverInfo (nil: keep the server's)
	supNext bool   // the next value is the one to replace
	supAt   int    // len(stack) where the replaced value started, 0: none
	supWith []byte // what replaces it (nil: a dropped member, nothing)

	// legacy filters the members of the result and of its _meta that a
	// legacy client must not get from a 2026-07-28 server (resultType,
	// ttlMs, cacheScope; the serverInfo copy): at those two depths member
	// names are held until known, and separators are written anew.
	legacy  bool
	holding bool   // a member name at a filtered depth is being read
	kept    [4]int // members written so far, per filtered depth
	done    bool   // the message object ended (its '}' not emitted)
	emit    func([]byte)
	b       []byte // the chunk being fed
	run     int    // start of the bytes of b not yet emitted or discarded
}

type tstate uint8

const (
	tValue      tstate = iota // a value must come
	tValueOrEnd               // after '[': a value or ']'
	tKeyOrEnd                 // after '{': a name or '}'
	tKey                      // after ',' in an object: a name
	tColon                    // after a name
	tAfter                    // after a value: ',' or the closing bracket
	tString                   // inside a string
	tEscape                   // after '\' in a string
	tUnicode                  // inside \uXXXX
	tLiteral                  // inside true, false or null
	tNumMinus                 // after '-': a digit must come
	tNumZero                  // after a leading 0
	tNumInt                   // in the integer digits
	tNumDot                   // after '.': a digit must come
	tNumFrac                  // in the fraction digits
	tNumE                     // after 'e': sign or digit
	tNumESign                 // after the exponent sign: a digit must come
	tNumExp                   // in the exponent digits
	tDone                     // the message object ended: only white space
)

const maxKeyTrack = 256

var errTrailing = errors.New("data after the end of the JSON-RPC message on the same line")

// errStreamedInput is a streamed result that asks for client input.
var errStreamedInput = errors.New("it asks for client input (input_required) in a message too long for the proxy to check its input requests before forwarding them")

func newTracker(topKeys []string, replace []byte) *tracker {
	t := &tracker{stack: []byte{'{'}, st: tValue, topKeys: map[string]bool{}, curTop: "result", replace: replace}
	for _, k := range topKeys {
		t.topKeys[k] = true
	}
	return t
}

// flush emits b[run:i] (discards it while a value is being replaced).
func (t *tracker) flush(i int) {
	if t.supAt == 0 && !t.holding && !t.done && i > t.run {
		t.emit(t.b[t.run:i])
	}
	t.run = i
}

// feed checks b and calls emit with the runs of it to forward (the final
// brace of the message and a replaced serverInfo excluded; the locked one
// emitted in its place). It stops at the first error, having emitted
// everything before the offending byte.
func (t *tracker) feed(b []byte, emit func([]byte)) error {
	t.b, t.run, t.emit = b, 0, emit
	err := t.scan()
	if err != nil {
		return err
	}
	t.flush(len(b))
	return nil
}

func (t *tracker) scan() error {
	b := t.b
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch t.st {
		case tString:
			j := i
			for j < len(b) && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20 {
				j++
			}
			t.keyBytes(b[i:j], i)
			if j == len(b) {
				i = j - 1
				continue
			}
			i, c = j, b[j]
			t.keyBytes(b[j:j+1], j)
			switch {
			case c == '"':
				if err := t.endString(i); err != nil {
					t.flush(i)
					return err
				}
			case c == '\\':
				t.st = tEscape
			default:
				t.flush(i)
				return errors.New("a control character inside a string")
			}
			continue
		case tEscape:
			t.keyBytes(b[i:i+1], i)
			switch c {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				t.st = tString
			case 'u':
				t.st, t.hex = tUnicode, 4
			default:
				t.flush(i)
				return errors.New("an invalid escape in a string")
			}
			continue
		case tUnicode:
			t.keyBytes(b[i:i+1], i)
			if !isHex(c) {
				t.flush(i)
				return errors.New("an invalid \\u escape in a string")
			}
			if t.hex--; t.hex == 0 {
				t.st = tString
			}
			continue
		case tLiteral:
			if c != t.lit[0] {
				t.flush(i)
				return errors.New("an invalid literal")
			}
			if t.lit = t.lit[1:]; t.lit == "" {
				t.valueEnded(i + 1)
			}
			continue
		case tNumMinus, tNumDot, tNumESign:
			if c < '0' || c > '9' {
				t.flush(i)
				return errors.New("an invalid number")
			}
			switch t.st {
			case tNumMinus:
				t.st = tNumInt
				if c == '0' {
					t.st = tNumZero
				}
			case tNumDot:
				t.st = tNumFrac
			default:
				t.st = tNumExp
			}
			continue
		case tNumE:
			switch {
			case c == '+' || c == '-':
				t.st = tNumESign
			case c >= '0' && c <= '9':
				t.st = tNumExp
			default:
				t.flush(i)
				return errors.New("an invalid number")
			}
			continue
		case tNumZero, tNumInt, tNumFrac, tNumExp:
			switch {
			case c >= '0' && c <= '9' && t.st != tNumZero:
				continue
			case c == '.' && (t.st == tNumZero || t.st == tNumInt):
				t.st = tNumDot
				continue
			case (c == 'e' || c == 'E') && t.st != tNumExp:
				t.st = tNumE
				continue
			}
			t.valueEnded(i)
			i-- // c is not part of the number: look at it again
			continue
		}
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		if err := t.structural(i, c); err != nil {
			t.flush(i)
			return err
		}
	}
	return nil
}

// structural handles a byte outside strings, numbers and literals.
func (t *tracker) structural(i int, c byte) error {
	switch t.st {
	case tDone:
		return errTrailing
	case tValue, tValueOrEnd:
		if c == ']' && t.st == tValueOrEnd {
			t.close(i)
			return nil
		}
		if t.supNext {
			t.flush(i)
			t.supNext, t.supAt, t.supWith = false, len(t.stack), t.replace
		}
		meta := t.metaNext
		t.metaNext = false
		if t.typeNext {
			t.typeNext = false
			if c != '"' {
				return errStreamedInput // not "complete": fail closed
			}
			t.typeVal, t.key, t.keyLong = true, append(t.key[:0], c), false
		}
		switch {
		case c == '{' || c == '[':
			t.stack = append(t.stack, c)
			t.st = tValueOrEnd
			if c == '{' {
				t.st = tKeyOrEnd
				if len(t.stack) == 3 {
					t.inMeta = meta
				}
				if d := len(t.stack); d < len(t.kept) {
					t.kept[d] = 0
				}
			}
		case c == '"':
			t.st, t.isKey = tString, false
		case c == 't':
			t.st, t.lit = tLiteral, "rue"
		case c == 'f':
			t.st, t.lit = tLiteral, "alse"
		case c == 'n':
			t.st, t.lit = tLiteral, "ull"
		case c == '-':
			t.st = tNumMinus
		case c == '0':
			t.st = tNumZero
		case c >= '1' && c <= '9':
			t.st = tNumInt
		default:
			return fmt.Errorf("a value expected, found %q", c)
		}
	case tKeyOrEnd, tKey:
		if c == '}' && t.st == tKeyOrEnd {
			t.close(i)
			return nil
		}
		if c != '"' {
			return fmt.Errorf("a member name expected, found %q", c)
		}
		if t.filtered() {
			t.flush(i)
			t.holding = true
		}
		t.st, t.isKey, t.key, t.keyLong = tString, true, append(t.key[:0], c), false
	case tColon:
		if c != ':' {
			return fmt.Errorf("':' expected, found %q", c)
		}
		t.st = tValue
	case tAfter:
		top := t.stack[len(t.stack)-1]
		switch {
		case c == ',':
			t.st = tValue
			if top == '{' {
				t.st = tKey
				if t.filtered() { // written anew before the next kept member
					t.flush(i)
					t.run = i + 1
				}
			}
		case (c == '}' && top == '{') || (c == ']' && top == '['):
			t.close(i)
		default:
			return fmt.Errorf("',' or a closing bracket expected, found %q", c)
		}
	}
	return nil
}

// keyBytes collects the bytes b of a member name; at is where b starts in
// the chunk being fed.
func (t *tracker) keyBytes(b []byte, at int) {
	if !(t.isKey || t.typeVal) || t.keyLong {
		return
	}
	if len(t.key)+len(b) > maxKeyTrack {
		t.keyLong = true
		if t.holding { // too long to be a name filtered out: write it as it comes
			t.holding = false
			t.keep(t.key)
			t.run = at
		}
		return
	}
	t.key = append(t.key, b...)
}

// filtered reports whether the object being read has its members filtered.
func (t *tracker) filtered() bool {
	if !t.legacy || t.curTop != "result" || len(t.stack) < 2 || t.stack[1] != '{' {
		return false
	}
	d := len(t.stack)
	return d == 2 || d == 3 && t.inMeta
}

// keep writes a kept member's held name bytes after its separator.
func (t *tracker) keep(name []byte) {
	d := len(t.stack)
	if t.kept[d] > 0 {
		t.emit([]byte{','})
	}
	t.kept[d]++
	t.emit(name)
}

// dropName reports whether a legacy client must not get the member k here.
func (t *tracker) dropName(k string) bool {
	switch len(t.stack) {
	case 2:
		return k == "resultType" || k == "ttlMs" || k == "cacheScope"
	case 3:
		return k == mcpwire.MetaServerInfo
	}
	return false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// endString finishes a string whose closing quote is b[i].
func (t *tracker) endString(i int) error {
	if !t.isKey {
		if t.typeVal {
			t.typeVal = false
			if v, err := jsonscan.Unquote(t.key); t.keyLong || err != nil || v != "complete" {
				return errStreamedInput
			}
		}
		t.valueEnded(i + 1)
		return nil
	}
	t.st, t.isKey = tColon, false
	if t.keyLong {
		if err := t.checkKey("", true); err != nil {
			t.flush(i + 1) // the name whole, so that closer can end it ":null"
			return err
		}
		return nil
	}
	k, err := jsonscan.Unquote(t.key)
	if err != nil {
		return errors.New("an invalid member name")
	}
	if err := t.checkKey(k, false); err != nil {
		t.flush(i + 1)
		return err
	}
	if t.holding {
		t.holding = false
		t.run = i + 1
		if t.dropName(k) {
			t.supNext = false
			t.supAt, t.supWith = len(t.stack), nil // the colon and the value go too
		} else {
			t.keep(t.key)
		}
	}
	return nil
}

// checkKey applies the rules on member names at the depths that matter:
// the message's members are unique; the result's _meta (and an inserted
// resultType) appear once; the result's _meta serverInfo appears once and
// is replaced by the locked value.
func (t *tracker) checkKey(k string, long bool) error {
	switch d := len(t.stack); {
	case d == 1:
		if long || t.topKeys[k] {
			return fmt.Errorf("the message has the member \"%s\" twice", mcpwire.TruncateQuote(k, 40))
		}
		t.topKeys[k], t.curTop = true, k
	case d == 2 && t.curTop == "result" && t.stack[1] == '{':
		switch {
		case k == "_meta" && t.seenMeta:
			return errors.New("the result has _meta twice")
		case k == "_meta":
			t.seenMeta, t.metaNext = true, true
		case k == "resultType" && t.typeIns:
			return errors.New("the result has resultType twice")
		case k == "resultType" && t.checkInput:
			t.typeNext = true
		case k == "inputRequests" && t.checkInput:
			return errStreamedInput
		}
	case d == 3 && t.inMeta:
		if k == mcpwire.MetaServerInfo {
			if t.seenInfo {
				return fmt.Errorf("the result's _meta has %q twice", mcpwire.MetaServerInfo)
			}
			t.seenInfo = true
			t.supNext = t.replace != nil
		}
	}
	return nil
}

// valueEnded finishes a scalar value whose last byte is before b[next].
func (t *tracker) valueEnded(next int) {
	t.st = tAfter
	t.metaNext = false
	t.endReplaced(next)
}

// close handles the closing bracket b[i].
func (t *tracker) close(i int) {
	t.stack = t.stack[:len(t.stack)-1]
	t.st = tAfter
	if len(t.stack) == 2 {
		t.inMeta = false
	}
	if len(t.stack) == 0 {
		t.flush(i) // the final '}' is the caller's
		t.run = i + 1
		t.st, t.done = tDone, true
		return
	}
	t.endReplaced(i + 1)
}

// endReplaced ends a replaced value whose last byte is before b[next]:
// the server's bytes are dropped and the locked value emitted instead.
func (t *tracker) endReplaced(next int) {
	if t.supAt == 0 || len(t.stack) != t.supAt {
		return
	}
	t.flush(next)
	t.supAt = 0
	if t.supWith != nil {
		t.emit(t.supWith)
	}
}

// closer returns the bytes that close everything open, so that the message
// object is open and a member can follow (", \"id\":...}"). What a replaced
// value had been dropped is completed with the locked value.
func (t *tracker) closer() []byte {
	if t.done {
		return nil
	}
	var b []byte
	switch {
	case t.holding: // a member name not written yet: as if it never came
		t.holding, t.isKey, t.st = false, false, tAfter
	case t.supAt != 0:
		t.stack = t.stack[:t.supAt]
		t.st, t.supAt = tAfter, 0
		b = append(b, t.supWith...)
	}
	switch t.st {
	case tString, tEscape, tUnicode:
		switch t.st {
		case tEscape:
			b = append(b, '\\')
		case tUnicode:
			for ; t.hex > 0; t.hex-- {
				b = append(b, '0')
			}
		}
		b = append(b, '"')
		if t.isKey {
			b = append(b, ":null"...)
		}
	case tLiteral:
		b = append(b, t.lit...)
	case tNumMinus, tNumDot, tNumE, tNumESign:
		b = append(b, '0')
	case tValue:
		b = append(b, "null"...)
	case tKey:
		if !t.filtered() { // a filtered object's comma is not written yet
			b = append(b, `"":null`...)
		}
	case tColon:
		b = append(b, ":null"...)
	}
	for len(t.stack) > 1 {
		if t.stack[len(t.stack)-1] == '{' {
			b = append(b, '}')
		} else {
			b = append(b, ']')
		}
		t.stack = t.stack[:len(t.stack)-1]
	}
	t.st = tAfter
	return b
}
