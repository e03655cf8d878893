package policy

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/lookalike"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// How a call's arguments are shown in the approval prompt: every member
// name, in byte order, each value shortened in its middle (never dropped),
// all escaped. A call that cannot be shown so within the limits below is
// refused before anyone is asked: a person cannot judge what they are not
// shown, and a steered model would pad the part that matters out of view.
const (
	maxArgsShown  = 4000 // bytes of the whole arguments section
	maxValueShown = 400  // bytes of one value, at most
	minValueShown = 24   // bytes of one value, at least (head and tail)
	maxNameShown  = 120  // bytes of one member name, escaped: never cut
	maxMembers    = 40   // members of the arguments object
)

// ErrUnshowable is why a call cannot be shown honestly in the prompt.
var ErrUnshowable = errors.New("the call cannot be shown in full in an approval prompt")

// shownArgs renders the arguments for a person, one member per line.
func shownArgs(args []byte) (string, error) {
	i := jsonscan.SkipWS(args, 0)
	if len(args) == 0 || string(args[i:]) == "null" {
		return "Arguments: (none)", nil
	}
	if args[i] != '{' {
		return "Arguments: " + shortenMiddle(string(args), maxValueShown), nil
	}
	type member struct{ name, val string }
	var ms []member
	_, err := jsonscan.ExactMembers(args, i, nil, func(k string, _, vs, ve int) error {
		ms = append(ms, member{k, string(args[vs:ve])})
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrUnshowable, err)
	}
	if len(ms) == 0 {
		return "Arguments: (none)", nil
	}
	if len(ms) > maxMembers {
		return "", fmt.Errorf("%w: its arguments have %d members, more than the %d a prompt can list", ErrUnshowable, len(ms), maxMembers)
	}
	sort.Slice(ms, func(a, b int) bool { return ms[a].name < ms[b].name })
	all := make([]string, len(ms))
	for k, m := range ms {
		all[k] = m.name
	}
	if c := lookalike.Collisions(all); len(c) > 0 {
		return "", fmt.Errorf("%w: its argument names %s, so a person cannot tell which value the server uses", ErrUnshowable, strings.Join(c, "; "))
	}
	names := 0
	for _, m := range ms {
		q := termtext.Quoted(m.name, -1)
		if len(q) > maxNameShown {
			return "", fmt.Errorf("%w: an argument name is %d bytes long, more than the %d a prompt shows uncut", ErrUnshowable, len(q), maxNameShown)
		}
		names += len(q) + 6
	}
	budget := (maxArgsShown - names) / len(ms)
	if budget > maxValueShown {
		budget = maxValueShown
	}
	if budget < minValueShown {
		return "", fmt.Errorf("%w: its %d argument names leave no room to show their values", ErrUnshowable, len(ms))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Arguments (%d; every name shown, long values shortened in the middle):", len(ms))
	for _, m := range ms {
		v := m.val
		if s, ok := jsonscan.String([]byte(v)); ok {
			b.WriteString("\n  " + termtext.Quoted(m.name, -1) + ": " + `"` + shortenMiddle(s, budget) + `"` + lookalikeNote(s))
			continue
		}
		v = compactJSON(v)
		b.WriteString("\n  " + termtext.Quoted(m.name, -1) + ": " + shortenMiddle(v, budget) + lookalikeNote(v))
	}
	return b.String(), nil
}

// lookalikeNote flags a value a person could misread: "\u0430lice@example.com"
// (Cyrillic a) prints as the address they expect, while the mail goes to
// another. "" for a value that reads as what it is.
func lookalikeNote(v string) string {
	why := lookalike.Check(v)
	if len(why) == 0 {
		return ""
	}
	return "  [LOOK-ALIKE TEXT: " + strings.Join(why, "; ") + "]"
}

// shortenMiddle escapes s and, when that is longer than max bytes, keeps
// its head and tail with the number of bytes left out between them.
func shortenMiddle(s string, max int) string {
	esc := func(x string) string {
		q, _ := termtext.Quote(x)
		return strings.ReplaceAll(q, `"`, `\"`)
	}
	if q := esc(s); len(q) <= max {
		return q
	}
	half := max / 2
	h, t := half, half
	for {
		hs, ts := cutHead(s, h), cutTail(s, t)
		head, tail := esc(hs), esc(ts)
		if len(head) <= half && len(tail) <= half || h <= 1 {
			return fmt.Sprintf("%s…(%d bytes not shown)…%s", head, len(s)-len(hs)-len(ts), tail)
		}
		if len(head) > half {
			h = h * 2 / 3
		}
		if len(tail) > half {
			t = t * 2 / 3
		}
	}
}

func cutHead(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:min(n, len(s))]
}

func cutTail(s string, n int) string {
	i := len(s) - n
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[max(i, 0):]
}

// compactJSON drops the insignificant white space of a valid JSON value.
func compactJSON(v string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case in:
			if c == '\\' && i+1 < len(v) {
				b.WriteByte(c)
				i++
				c = v[i]
			} else if c == '"' {
				in = false
			}
		case c == '"':
			in = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
