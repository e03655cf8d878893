package mcpwire

import (
	"bytes"
	"context"

	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// maxPages bounds pagination even when pages are empty.
const maxPages = mcpspec.MaxItems

// Surface is a server's full listed surface. Items are raw JSON exactly as the
// server sent them, in the order sent; kinds the server did not advertise are
// empty (non-nil) slices.
type Surface struct {
	Hello
	Tools, Prompts, Resources, ResourceTemplates []json.RawMessage
	// NotFound lists the list methods the server advertised but answered
	// with -32601 (method not found) on their first page; each counts as an
	// empty list of its kind.
	NotFound []string
}

// ListAll lists every kind the server advertised in h.Capabilities (tools →
// tools/list; prompts → prompts/list; resources → resources/list and
// resources/templates/list), following every nextCursor ("" is a cursor; only
// an absent or null nextCursor ends the list). Modern requests carry Meta(h).
// A repeated cursor, more than mcpspec.MaxItems items of a kind, an item without its
// key (name, uri or uriTemplate) or a duplicate key fails with a clear error,
// as does a modern result whose resultType is not "complete". Result envelope
// fields (resultType, ttlMs, cacheScope, _meta, nextCursor) are not kept.
//
// A -32601 (method not found) answer to the first page of a list the server
// advertised is an empty list of that kind, recorded in Surface.NotFound:
// real servers do that (mcp-server-kubernetes, server-puppeteer and
// server-postgres advertise resources and answer resources/templates/list
// so), and real clients tolerate it. A later real list of that kind is
// ordinary drift (items added). -32601 on a later page is an error.
func ListAll(ctx context.Context, c Caller, h *Hello) (*Surface, error) {
	cf, err := jsonscan.Fields(h.Capabilities, "tools", "prompts", "resources")
	if err != nil {
		return nil, fmt.Errorf("list surface: server capabilities are not a JSON object with unique keys: %w", err)
	}
	caps := map[string][]byte{"tools": cf[0], "prompts": cf[1], "resources": cf[2]}
	s := &Surface{Hello: *h}
	out := []*[]json.RawMessage{&s.Tools, &s.Prompts, &s.Resources, &s.ResourceTemplates}
	for i, k := range mcpspec.Kinds {
		*out[i] = []json.RawMessage{}
		if v := caps[k.Capability]; v == nil || string(v) == "null" {
			continue
		}
		items, err := listKind(ctx, c, h, k)
		var rpc *Error
		if errors.As(err, &rpc) && rpc.Code == mcpspec.CodeMethodNotFound && items != nil {
			s.NotFound = append(s.NotFound, k.Method)
			err = nil
		}
		if err != nil {
			return nil, err
		}
		*out[i] = items
	}
	return s, nil
}

func listKind(ctx context.Context, c Caller, h *Hello, k mcpspec.Kind) ([]json.RawMessage, error) {
	meta := Meta(h)
	items := []json.RawMessage{}
	seenKeys := map[string]bool{}
	seenCursors := map[string]bool{}
	var cursor *string
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, fmt.Errorf("%s: more than %d pages; mcpsum stops there", k.Method, maxPages)
		}
		res, err := c.Call(ctx, k.Method, listParams(cursor, meta))
		if err != nil {
			var rpc *Error
			if page == 0 && errors.As(err, &rpc) && rpc.Code == mcpspec.CodeMethodNotFound {
				return []json.RawMessage{}, err // ListAll: an empty list of this kind
			}
			return nil, err
		}
		if _, ok := c.(validatedCaller); !ok && !json.Valid(res) {
			return nil, fmt.Errorf("%s (page %d): the result is not valid JSON: %s", k.Method, page+1, termtext.TruncateQuote(string(res), 200))
		}
		next, pageItems, err := parsePage(res, k, h.Era == mcpspec.EraModern)
		if err != nil {
			return nil, fmt.Errorf("%s (page %d): %w", k.Method, page+1, err)
		}
		for _, it := range pageItems {
			key, err := itemKey(it, k)
			if err != nil {
				return nil, fmt.Errorf("%s (page %d): %w", k.Method, page+1, err)
			}
			if seenKeys[key] {
				return nil, fmt.Errorf("%s: the server lists more than one %s with %s %s; keys must be unique to lock them", k.Method, k.Noun, k.Key, termtext.Quoted(key, 200))
			}
			seenKeys[key] = true
			items = append(items, it)
			if len(items) > mcpspec.MaxItems {
				return nil, fmt.Errorf("%s: the server lists more than %d %ss; mcpsum locks at most %d of a kind", k.Method, mcpspec.MaxItems, k.Noun, mcpspec.MaxItems)
			}
		}
		if next == nil {
			return items, nil
		}
		Step(ctx, fmt.Sprintf("listing %ss: %d so far", k.Noun, len(items)))
		if seenCursors[*next] {
			return nil, fmt.Errorf("%s: the server repeated the cursor %s (a pagination loop); the list cannot be read completely", k.Method, termtext.Quoted(*next, 100))
		}
		seenCursors[*next] = true
		cursor = next
	}
}

// validatedCaller marks Callers whose results are known to be valid JSON
// (a Client's replies all passed Decode), so ListAll need not check again.
type validatedCaller interface{ validatesJSON() }

func listParams(cursor *string, meta json.RawMessage) json.RawMessage {
	if cursor == nil && meta == nil {
		return nil // legacy first page: params may be omitted
	}
	p := map[string]any{}
	if cursor != nil {
		p["cursor"] = *cursor
	}
	if meta != nil {
		p["_meta"] = meta
	}
	b, _ := json.Marshal(p)
	return b
}

// parsePage returns the page's nextCursor (nil at the end) and its items as
// copies of the raw bytes sent. res must be valid JSON.
func parsePage(res json.RawMessage, k mcpspec.Kind, modern bool) (*string, []json.RawMessage, error) {
	var next *string
	var items []json.RawMessage
	found := false
	err := eachExact(res, []string{"resultType", "nextCursor", k.Field}, func(name string, val []byte) error {
		switch name {
		case "resultType":
			var s string
			if modern && (json.Unmarshal(val, &s) != nil || s != "complete") {
				return fmt.Errorf("resultType is %s, not \"complete\"", termtext.TruncateQuote(string(val), 100))
			}
		case "nextCursor":
			next = nil
			if string(val) != "null" {
				var s string
				if err := json.Unmarshal(val, &s); err != nil {
					return fmt.Errorf("nextCursor is not a string: %s", termtext.TruncateQuote(string(val), 100))
				}
				next = &s
			}
		case k.Field:
			var err error
			if items, err = splitArray(val); err != nil {
				return fmt.Errorf("%q is not an array: %s", k.Field, termtext.TruncateQuote(string(val), 100))
			}
			found = true
		}
		return nil
	})
	var dup *jsonscan.DuplicateError
	var twin *jsonscan.TwinError
	switch {
	case errors.Is(err, errNotObject) || errors.Is(err, errMalformed):
		return nil, nil, fmt.Errorf("the result is not a JSON object: %s", termtext.TruncateQuote(string(res), 200))
	case errors.As(err, &dup):
		return nil, nil, fmt.Errorf("the result has %s twice; which one counts would depend on the client", termtext.Quoted(dup.Key, 80))
	case errors.As(err, &twin):
		return nil, nil, fmt.Errorf("the result has %s beside or instead of %q; a client that ignores case would read one for the other", termtext.Quoted(twin.Key, 80), twin.Of)
	case err != nil:
		return nil, nil, err
	case !found:
		return nil, nil, fmt.Errorf("the result has no %q array", k.Field)
	}
	return next, items, nil
}

// itemKey returns the identity key of one item (a JSON string member). An
// item naming its key twice is refused: which one counts would depend on
// the parser. So is an item holding two members equal ignoring case
// ("description" and "Description"): a client decoding into structs reads
// one, the review shows the other.
func itemKey(item json.RawMessage, k mcpspec.Kind) (string, error) {
	var key *string
	var seen []string
	err := eachExact(item, []string{k.Key}, func(name string, val []byte) error {
		if of := jsonscan.TwinOf(name, seen); of != "" {
			return &jsonscan.TwinError{Key: name, Of: of}
		}
		seen = append(seen, name)
		if name != k.Key {
			return nil
		}
		var s string
		if json.Unmarshal(val, &s) != nil {
			return fmt.Errorf("a %s has no string %q: %s", k.Noun, k.Key, termtext.TruncateQuote(string(item), 200))
		}
		key = &s
		return nil
	})
	var dup *jsonscan.DuplicateError
	var twin *jsonscan.TwinError
	switch {
	case errors.Is(err, errNotObject) || errors.Is(err, errMalformed):
		return "", fmt.Errorf("a %s is not a JSON object: %s", k.Noun, termtext.TruncateQuote(string(item), 200))
	case errors.As(err, &dup):
		return "", fmt.Errorf("a %s has %s twice: %s", k.Noun, termtext.Quoted(dup.Key, 80), termtext.TruncateQuote(string(item), 200))
	case errors.As(err, &twin):
		return "", fmt.Errorf("a %s has %s beside or instead of %q (a client that ignores case would read one for the other): %s", k.Noun, termtext.Quoted(twin.Key, 80), twin.Of, termtext.TruncateQuote(string(item), 200))
	case err != nil:
		return "", err
	case key == nil:
		return "", fmt.Errorf("a %s has no string %q: %s", k.Noun, k.Key, termtext.TruncateQuote(string(item), 200))
	}
	return *key, nil
}

// The inventory walks list results with internal/jsonscan over JSON already
// known to be valid (every line a Client reads passed Decode, which parses
// it with encoding/json). It finds the members of an object and the elements
// of an array without decoding them, so the inventory reads a 1000-tool reply
// in one pass instead of several. On malformed input it returns
// errMalformed; it never panics.

var (
	errMalformed = jsonscan.ErrSyntax
	errNotObject = errors.New("not a JSON object")
)

// eachExact calls fn with the decoded name and the raw value of every
// member of the object b, in order, under the exact-key rule shared with the
// proxy (jsonscan.ExactMembers): a member twice, or a case variant of one of
// names (the members mcpsum reads), is an error, since a client that
// ignores case would read the variant.
func eachExact(b []byte, names []string, fn func(name string, val []byte) error) error {
	i := jsonscan.SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errNotObject
	}
	end, err := jsonscan.ExactMembers(b, i, names, func(name string, _, vs, ve int) error {
		return fn(name, b[vs:ve])
	})
	if err != nil {
		return err
	}
	return trailing(b, end)
}

func trailing(b []byte, i int) error {
	if jsonscan.SkipWS(b, i) != len(b) {
		return errMalformed
	}
	return nil
}

// splitArray returns the elements of the array b as subslices of one copy of
// b (each capped at its own end, so appending to one cannot touch another).
// null gives an empty list.
func splitArray(b []byte) ([]json.RawMessage, error) {
	i := jsonscan.SkipWS(b, 0)
	if i < len(b) && bytes.HasPrefix(b[i:], []byte("null")) {
		return []json.RawMessage{}, trailing(b, i+4)
	}
	if i >= len(b) || b[i] != '[' {
		return nil, errors.New("not an array")
	}
	b = bytes.Clone(b)
	out := []json.RawMessage{}
	end, err := jsonscan.Elements(b, i, func(vs, ve int) error {
		out = append(out, json.RawMessage(b[vs:ve:ve]))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, trailing(b, end)
}
