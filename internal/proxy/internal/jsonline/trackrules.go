package jsonline

import (
	"errors"
	"fmt"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// The tracker's rules on members (track.go has the JSON grammar): which
// names repeat, which the locked serverInfo replaces, which a legacy client
// does not get, and which make a streamed result one the proxy must cut;
// and closer, which ends a line cut short as valid JSON.

// RefuseInput makes the tracker cut a result that asks for client input
// (a 2026-07-28 server's input_required, which a streamed line cannot have
// checked or bridged).
func (t *Tracker) RefuseInput() { t.checkInput = true }

// ForLegacy filters what a legacy client must not get from a 2026-07-28
// server, and keeps the server's serverInfo (a legacy client gets its own
// era's fields only).
func (t *Tracker) ForLegacy() { t.legacy, t.replace = true, nil }

// TypeInserted tells the tracker, fed the result's '{' alone, that the
// caller wrote "resultType":"complete", after it: a member name comes next
// and a resultType of the server's is a duplicate.
func (t *Tracker) TypeInserted() { t.st, t.typeIns = tKey, true }

// Ended reports whether the message object ended (its '}' not emitted).
func (t *Tracker) Ended() bool { return t.done }

// keyBytes collects the bytes b of a member name; at is where b starts in
// the chunk being fed.
func (t *Tracker) keyBytes(b []byte, at int) {
	if !(t.isKey || t.typeVal) || t.keyLong || t.noRules() {
		return
	}
	if len(t.key)+len(b) > maxKeyTrack {
		t.keyLong = true
		if t.holding && len(t.stack) > 1 { // too long to be a name filtered out: write it as it comes
			t.holding = false
			t.keep(t.key)
			t.run = at
		}
		return
	}
	t.key = append(t.key, b...)
}

// noRules reports whether no rule reads the member names of the object
// being read: below the result's members and its _meta's (the fast path,
// trackfast.go, reads none there either).
func (t *Tracker) noRules() bool {
	d := len(t.stack)
	return t.plain || d > 3 || d == 3 && !t.inMeta
}

// filtered reports whether the object being read has its members held
// and filtered.
func (t *Tracker) filtered() bool {
	if len(t.stack) == 1 && !t.plain {
		// The message's own members after the result: held until the
		// response rule accepts them, so a refused one never reaches the
		// client, not even its name.
		return true
	}
	if !t.legacy || t.curTop != "result" || len(t.stack) < 2 || t.stack[1] != '{' {
		return false
	}
	d := len(t.stack)
	return d == 2 || d == 3 && t.inMeta
}

// keep writes a kept member's held name bytes after its separator.
func (t *Tracker) keep(name []byte) {
	d := len(t.stack)
	if t.kept[d] > 0 {
		t.emit([]byte{','})
	}
	t.kept[d]++
	t.emit(name)
}

// dropName reports whether a legacy client must not get the member k here.
func (t *Tracker) dropName(k string) bool {
	switch len(t.stack) {
	case 2:
		return k == "resultType" || k == "ttlMs" || k == "cacheScope"
	case 3:
		return k == mcpspec.MetaServerInfo
	}
	return false
}

// endString finishes a string whose closing quote is b[i].
func (t *Tracker) endString(i int) error {
	if !t.isKey {
		if t.typeVal {
			t.typeVal = false
			if v, err := jsonscan.Unquote(t.key); t.keyLong || err != nil || v != "complete" {
				return ErrStreamedInput
			}
		}
		t.valueEnded(i + 1)
		return nil
	}
	t.st, t.isKey = tColon, false
	if t.noRules() {
		return nil
	}
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
func (t *Tracker) checkKey(k string, long bool) error {
	switch d := len(t.stack); {
	case d == 1:
		if long || t.topKeys[k] {
			return fmt.Errorf("the message has the member \"%s\" twice", termtext.TruncateQuote(k, 40))
		}
		if k != "jsonrpc" && k != "id" {
			return responseMemberError(k)
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
			return ErrStreamedInput
		}
	case d == 3 && t.inMeta:
		if k == mcpspec.MetaServerInfo {
			if t.seenInfo {
				return fmt.Errorf("the result's _meta has %q twice", mcpspec.MetaServerInfo)
			}
			t.seenInfo = true
			t.supNext = t.replace != nil
		}
	}
	return nil
}

// valueEnded finishes a scalar value whose last byte is before b[next].
func (t *Tracker) valueEnded(next int) {
	t.st = tAfter
	t.metaNext = false
	t.endReplaced(next)
}

// close handles the closing bracket b[i].
func (t *Tracker) close(i int) {
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
func (t *Tracker) endReplaced(next int) {
	if t.supAt == 0 || len(t.stack) != t.supAt {
		return
	}
	t.flush(next)
	t.supAt = 0
	if t.supWith != nil {
		t.emit(t.supWith)
	}
}

// Closer returns the bytes that close everything open, so that the message
// object is open and a member can follow (", \"id\":...}"). What a replaced
// value had been dropped is completed with the locked value.
func (t *Tracker) Closer() []byte {
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
	case tString, tEscape, tUnicode, tRune:
		switch t.st {
		case tRune:
			b = append(b, partCloser(t.part)...)
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
