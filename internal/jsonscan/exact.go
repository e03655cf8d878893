package jsonscan

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// The exact-key rule, written once for both directions: verify and lock
// read a server's messages with it (Fields), the proxy reads a client's
// requests with it (ExactMembers, FoldUnique). A peer that decodes JSON
// into structs with encoding/json (mcp-go does) matches member names
// ignoring case and keeps the last of several: {"name":"a","Name":"b"} is
// "b" to it. So an object mcpsum acts on must not hold, besides a member
// mcpsum reads, a case variant of it, nor any member twice; otherwise
// mcpsum and the peer would act on two different messages.

// TwinError reports a member whose name is a case variant of a member
// mcpsum reads: a peer that ignores case reads one for the other. Its
// message writes non-ASCII letters escaped: the Kelvin sign is "\u212a",
// not a second "K".
type TwinError struct{ Key, Of string }

func (e *TwinError) Error() string {
	return fmt.Sprintf("member %+q is a case variant of %+q (peers that ignore case would read it instead)", e.Key, e.Of)
}

// Fold is a member name as encoding/json matches it to a struct field:
// ASCII letters upper-cased, every other rune replaced by the smallest rune
// of its case-folding orbit (so the Kelvin sign folds to K and the long s to
// S), exactly as bytes.EqualFold. Two names with one Fold are one field to
// such a peer.
func Fold(name string) string {
	out := make([]byte, 0, len(name))
	for i := 0; i < len(name); {
		c := name[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(name[i:])
		out = utf8.AppendRune(out, foldRune(r))
		i += n
	}
	return string(out)
}

// foldRune is the smallest rune of r's case-folding orbit.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// TwinOf returns the name in names that key is a case variant of (equal
// after Fold, not identical), or "".
func TwinOf(key string, names []string) string {
	var fk string
	for _, n := range names {
		if key == n {
			return ""
		}
	}
	for _, n := range names {
		if !asciiFoldable(key, n) {
			continue
		}
		if fk == "" {
			fk = Fold(key)
		}
		if fk == Fold(n) {
			return n
		}
	}
	return ""
}

// asciiFoldable is a cheap filter: two ASCII names can only fold alike
// when they have one length and agree byte by byte ignoring ASCII case;
// anything else is checked in full by Fold.
func asciiFoldable(key, n string) bool {
	if !isASCII(key) || !isASCII(n) {
		return true
	}
	if len(key) != len(n) {
		return false
	}
	for i := 0; i < len(key); i++ {
		if lowerASCII(key[i]) != lowerASCII(n[i]) {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// ExactMembers walks the object whose '{' is b[i] like Members, after
// checking each member against the exact-key rule: a name seen before is a
// *DuplicateError, a case variant of one of names (the members the caller
// acts on) is a *TwinError.
func ExactMembers(b []byte, i int, names []string, fn func(key string, keyStart, valStart, valEnd int) error) (int, error) {
	var seen []string
	var seenSet map[string]struct{}
	return Members(b, i, func(key string, ks, vs, ve int) error {
		if seenSet != nil {
			if _, dup := seenSet[key]; dup {
				return &DuplicateError{Key: key}
			}
			seenSet[key] = struct{}{}
		} else {
			for _, k := range seen {
				if k == key {
					return &DuplicateError{Key: key}
				}
			}
			if seen = append(seen, key); len(seen) > 16 {
				seenSet = make(map[string]struct{}, 32)
				for _, k := range seen {
					seenSet[k] = struct{}{}
				}
			}
		}
		if of := TwinOf(key, names); of != "" {
			return &TwinError{Key: key, Of: of}
		}
		return fn(key, ks, vs, ve)
	})
}

// FoldUnique checks the value v (the arguments of a call) for objects, at
// any depth, holding two members whose names are equal after Fold (a
// duplicate included): a peer decoding into structs runs one of them, and
// a person approving the call may have been shown the other. The error is
// a *DuplicateError or a *TwinError naming both; ErrSyntax for what the
// scanner cannot walk.
func FoldUnique(v []byte) error {
	i := SkipWS(v, 0)
	end, err := foldUnique(v, i, 0)
	if err != nil {
		return err
	}
	if SkipWS(v, end) != len(v) {
		return ErrSyntax
	}
	return nil
}

// maxFoldDepth bounds the nesting FoldUnique walks (deeper is refused).
const maxFoldDepth = 256

func foldUnique(b []byte, i, depth int) (int, error) {
	if depth > maxFoldDepth {
		return 0, fmt.Errorf("%w: nested more than %d levels", ErrSyntax, maxFoldDepth)
	}
	if i >= len(b) {
		return 0, ErrSyntax
	}
	switch b[i] {
	case '{':
		seen := map[string]string{}
		return Members(b, i, func(key string, _, vs, _ int) error {
			f := Fold(key)
			if prev, ok := seen[f]; ok {
				if prev == key {
					return &DuplicateError{Key: key}
				}
				return &TwinError{Key: key, Of: prev}
			}
			seen[f] = key
			_, err := foldUnique(b, vs, depth+1)
			return err
		})
	case '[':
		return Elements(b, i, func(vs, _ int) error {
			_, err := foldUnique(b, vs, depth+1)
			return err
		})
	}
	return SkipValue(b, i)
}
