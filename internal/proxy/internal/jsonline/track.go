package jsonline

import (
	"errors"
	"fmt"
)

// Tracker follows the JSON grammar of a streamed response byte by byte, so
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
type Tracker struct {
	grammar
	rules
	edits
	emit func([]byte)
	b    []byte // the chunk being fed
	run  int    // start of the bytes of b not yet emitted or discarded
}

// grammar is where the tracker is in the JSON grammar.
type grammar struct {
	stack []byte // '{' or '[' per open container; stack[0] is the message object
	st    tstate
	lit   string // what is left of true, false or null
	hex   int    // hex digits left in a \u escape
	isKey bool   // the current string is a member name
	part  []byte // the first bytes of a UTF-8 sequence split across chunks
	plain bool   // check the grammar only (validate), no member rules
	done  bool   // the message object ended (its '}' not emitted)
	slow  bool   // tests: the byte-by-byte machine only (no trackfast.go)
}

// rules is what the member rules (trackrules.go) know so far.
type rules struct {
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
}

// edits is how the tracker changes what it forwards.
type edits struct {
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
	tRune                     // inside a string, in a UTF-8 sequence split across chunks
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

// ErrStreamedInput is a streamed result that asks for client input.
var ErrStreamedInput = errors.New("it asks for client input (input_required) in a message too long for the proxy to check its input requests before forwarding them")

// NewTracker starts a tracker right before the value of the member
// "result", the head's member names being topKeys; replace is the locked
// serverInfo that replaces the result's _meta one (nil: keep the server's).
func NewTracker(topKeys []string, replace []byte) *Tracker {
	t := &Tracker{
		grammar: grammar{stack: []byte{'{'}, st: tValue},
		rules:   rules{topKeys: map[string]bool{}, curTop: "result"},
		edits:   edits{replace: replace},
	}
	t.kept[1] = 1 // the result: a member after it needs a comma
	for _, k := range topKeys {
		t.topKeys[k] = true
	}
	return t
}

// flush emits b[run:i] (discards it while a value is being replaced).
func (t *Tracker) flush(i int) {
	if t.supAt == 0 && !t.holding && !t.done && i > t.run {
		t.emit(t.b[t.run:i])
	}
	t.run = i
}

// Feed checks b and calls emit with the runs of it to forward (the final
// brace of the message and a replaced serverInfo excluded; the locked one
// emitted in its place). It stops at the first error, having emitted
// everything before the offending byte.
func (t *Tracker) Feed(b []byte, emit func([]byte)) error {
	t.b, t.run, t.emit = b, 0, emit
	err := t.scan()
	if err != nil {
		return err
	}
	t.flush(len(b))
	return nil
}

func (t *Tracker) scan() error {
	b := t.b
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch t.st {
		case tString:
			j, split, err := shortString(b, i)
			if err != nil {
				t.flush(j)
				return err
			}
			if split {
				t.part = append(t.part[:0], b[j:]...)
				t.st, j = tRune, len(b)
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
		case tRune:
			t.keyBytes(b[i:i+1], i)
			done, err := t.runeTail(c)
			if err != nil {
				t.flush(i)
				return err
			}
			if done {
				t.st = tString
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
			if n := len(t.lit); i+n <= len(b) && string(b[i:i+n]) == t.lit {
				i += n - 1
				t.lit = ""
				t.valueEnded(i + 1)
				continue
			}
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
			if t.st != tNumZero {
				for c >= '0' && c <= '9' { // the digits at once
					if i++; i == len(b) {
						return nil
					}
					c = b[i]
				}
			}
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
		// Rows of small members (trackfast.go); not for a bracket that
		// closes back to the depths the rules read (it would hand it back).
		if low := t.fastLow(); low != 0 && (len(t.stack) > low || c != '}' && c != ']') {
			if j := t.fast(b, i, low); j > i {
				i = j - 1
				continue
			}
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
func (t *Tracker) structural(i int, c byte) error {
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
				return ErrStreamedInput // not "complete": fail closed
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

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
