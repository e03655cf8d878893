package lockfile

import (
	"encoding/json"
	"math"
	"slices"
)

// MaxIndentDepth is how deep the lockfile's indentation goes: an object or
// array nested in MaxIndentDepth others (the top-level object counts) is
// written compactly on one line, its key order and escapes kept, instead of
// one member per line two spaces further in. Above that depth the output is
// exactly json.Indent's with a 2-space indent, so every lockfile of real
// servers (their items nest about 10 levels, 15 in the file) is unchanged;
// below it, a line never starts with more than 2*MaxIndentDepth spaces, so
// the file grows linearly with what the servers sent whatever its shape (2
// spaces per level per line made a schema nested 4,000 levels deep a 32 MB
// file, and one 10,000 deep 200 MB). See docs/lockfile-format.md.
const MaxIndentDepth = 16

// appendIndented appends src, which must be valid compact JSON (as
// appendEntry builds it: no whitespace outside strings), as the value of a
// member at nesting depth base: indented by two spaces per level down to
// MaxIndentDepth and compact below it. One pass over src: each byte is
// looked at once, whatever the nesting. It stops early, with dst cut
// short, once dst holds more than limit bytes.
func appendIndented(dst, src []byte, base, limit int) []byte {
	return indenter{}.append(dst, src, base, limit)
}

// Indent appends the JSON value src indented as the lockfile is (two
// spaces per level down to MaxIndentDepth levels, compact below), with
// prefix at the start of every line after the first: json.Indent with a
// cap, for showing items whatever their depth (show, verify's diffs).
func Indent(dst, src []byte, prefix string) ([]byte, error) {
	if !json.Valid(src) {
		return dst, errf("not valid JSON")
	}
	return indenter{prefix: prefix}.append(dst, compact(src), 0, math.MaxInt), nil
}

// indenter is appendIndented's state: the prefix of every new line.
type indenter struct{ prefix string }

func (in indenter) append(dst, src []byte, base, limit int) []byte {
	depth := base
	dst = room(dst, min(len(src)+len(src)/4, limit-len(dst)))
	for i := 0; i < len(src) && len(dst) <= limit; i++ {
		c := src[i]
		switch c {
		case '"':
			end := stringEnd(src, i)
			dst = append(room(dst, end-i), src[i:end]...)
			i = end - 1
		case '{', '[':
			if depth >= MaxIndentDepth {
				end := containerEnd(src, i)
				dst = append(room(dst, end-i), src[i:end]...)
				i = end - 1
				continue
			}
			dst = append(dst, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1])
				i++
				continue
			}
			depth++
			dst = in.newline(dst, depth)
		case '}', ']':
			depth--
			dst = in.newline(dst, depth)
			dst = append(dst, c)
		case ',':
			dst = append(dst, ',')
			dst = in.newline(dst, depth)
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func (in indenter) newline(dst []byte, depth int) []byte {
	dst = append(room(dst, 1+len(in.prefix)+2*depth), '\n')
	dst = append(dst, in.prefix...)
	for range depth {
		dst = append(dst, ' ', ' ')
	}
	return dst
}

// room makes room for n more bytes in dst, doubling its capacity when it
// grows (append grows a large slice by a quarter at a time: five times
// the copying, for an indented file many times its input).
func room(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	return slices.Grow(dst, max(n, len(dst)))
}

// stringEnd returns the index just past the JSON string that starts at
// src[i] (a '"').
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}

// containerEnd returns the index just past the object or array that starts
// at src[i].
func containerEnd(src []byte, i int) int {
	depth := 0
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '"':
			j = stringEnd(src, j) - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(src)
}
