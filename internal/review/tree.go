package review

import (
	"strconv"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
)

// node is a JSON value read with exact keys in document order (the lock's
// items passed the lockfile's duplicate check; this reading never folds case
// and never drops a member).
type node struct {
	kind    byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	str     string
	num     float64
	lit     string // a number's or bool's literal
	keys    []string
	vals    []*node
	entries []*node // array elements
}

// parse reads raw into a node; nil when raw is empty or not JSON.
func parse(raw []byte) *node {
	if len(raw) == 0 {
		return nil
	}
	i := jsonscan.SkipWS(raw, 0)
	n, _, err := parseAt(raw, i)
	if err != nil {
		return nil
	}
	return n
}

func parseAt(b []byte, i int) (*node, int, error) {
	if i >= len(b) {
		return nil, 0, jsonscan.ErrSyntax
	}
	switch b[i] {
	case '{':
		n := &node{kind: 'o'}
		end, err := jsonscan.Members(b, i, func(key string, _, vs, _ int) error {
			v, _, err := parseAt(b, vs)
			n.keys, n.vals = append(n.keys, key), append(n.vals, v)
			return err
		})
		return n, end, err
	case '[':
		n := &node{kind: 'a'}
		end, err := jsonscan.Elements(b, i, func(vs, _ int) error {
			v, _, err := parseAt(b, vs)
			n.entries = append(n.entries, v)
			return err
		})
		return n, end, err
	case '"':
		end, err := jsonscan.SkipString(b, i)
		if err != nil {
			return nil, 0, err
		}
		s, err := jsonscan.Unquote(b[i:end])
		return &node{kind: 's', str: s}, end, err
	}
	end, err := jsonscan.SkipValue(b, i)
	if err != nil {
		return nil, 0, err
	}
	lit := string(b[i:end])
	switch lit {
	case "true", "false":
		return &node{kind: 'b', lit: lit}, end, nil
	case "null":
		return &node{kind: 'z'}, end, nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	return &node{kind: 'n', num: f, lit: lit}, end, err
}

// get returns member key of an object (nil if absent or n is not one).
func (n *node) get(key string) *node {
	if n == nil || n.kind != 'o' {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// equal reports whether a and b are the same JSON value (member order
// ignored; numbers by value).
func equal(a, b *node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case 's':
		return a.str == b.str
	case 'n':
		return a.num == b.num
	case 'b':
		return a.lit == b.lit
	case 'a':
		if len(a.entries) != len(b.entries) {
			return false
		}
		for i := range a.entries {
			if !equal(a.entries[i], b.entries[i]) {
				return false
			}
		}
		return true
	case 'o':
		if len(a.keys) != len(b.keys) {
			return false
		}
		for i, k := range a.keys {
			if !equal(a.vals[i], b.get(k)) {
				return false
			}
		}
		return true
	}
	return true
}
