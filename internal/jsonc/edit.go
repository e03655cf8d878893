package jsonc

import (
	"bytes"
	"fmt"
)

// Position returns the 1-based line and column (in bytes) of offset off.
func Position(src []byte, off int) (line, col int) {
	off = min(max(off, 0), len(src))
	line = 1 + bytes.Count(src[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(src[:off], '\n')
	return line, col
}

// Lines maps offsets to line numbers in one source; built once, each
// lookup is a binary search (Position on every entry of a 10 MB file would
// rescan it each time).
type Lines struct{ nl []int }

// NewLines indexes the newlines of src.
func NewLines(src []byte) *Lines {
	l := &Lines{}
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			return l
		}
		l.nl = append(l.nl, i+j)
		i += j + 1
	}
}

// Line returns the 1-based line of offset off.
func (l *Lines) Line(off int) int {
	lo, hi := 0, len(l.nl) // count newlines before off
	for lo < hi {
		m := (lo + hi) / 2
		if l.nl[m] < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo + 1
}

// Edit replaces src[Start:End] with Text.
type Edit struct {
	Start, End int
	Text       string
}

// Apply returns src with edits applied. Edits must not overlap; they may be
// given in any order.
func Apply(src []byte, edits []Edit) ([]byte, error) {
	sorted := append([]Edit(nil), edits...)
	for i := 1; i < len(sorted); i++ { // insertion sort: a handful of edits
		for j := i; j > 0 && sorted[j].Start < sorted[j-1].Start; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	var out bytes.Buffer
	prev := 0
	for _, e := range sorted {
		if e.Start < prev || e.End < e.Start || e.End > len(src) {
			return nil, fmt.Errorf("jsonc: overlapping or out-of-range edit [%d,%d)", e.Start, e.End)
		}
		out.Write(src[prev:e.Start])
		out.WriteString(e.Text)
		prev = e.End
	}
	out.Write(src[prev:])
	return out.Bytes(), nil
}
