package clientconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonc"
)

// Key names an entry within a config (scope, then name).
type Key struct{ Scope, Name string }

// Key returns the entry's key.
func (e *Entry) Key() Key { return Key{e.Scope, e.Name} }

// CanRewrite reports whether mcpsum rewrites this config's format in place
// (JSON and JSONC); other formats get a snippet to paste.
func (cfg *Config) CanRewrite() bool { return cfg.Client.Format == JSON || cfg.Client.Format == JSONC }

// Change is one rewritten entry: its command and args before and after, as
// they appear in the file (only those bytes; nothing else of the entry, so
// env values are never shown).
type Change struct {
	Name, Scope string
	Line        int
	Old, New    string
}

// Rewrite returns the config's bytes with the command and args of each entry
// in argv replaced: the command value becomes argv[0], the args value (added
// right after the command when the entry has none) becomes argv[1:]. Every
// other byte stays as it was. The result is parsed again and checked: the
// rewritten entries must read back as exactly argv, every other entry as it
// was; anything else is an error and nothing is returned.
func (cfg *Config) Rewrite(argv map[Key][]string) ([]byte, []Change, error) {
	if !cfg.CanRewrite() {
		return nil, nil, hint.Errorf("paste the snippet it prints instead", "%s: mcpsum does not rewrite %s files", cfg.Path, cfg.Client.Format)
	}
	var edits []jsonc.Edit
	var changes []Change
	for k := range argv {
		if !slices.ContainsFunc(cfg.Entries, func(e Entry) bool { return e.Key() == k }) {
			return nil, nil, fmt.Errorf("%s: no server %q to rewrite", cfg.Path, k.Name)
		}
	}
	for i := range cfg.Entries {
		e := &cfg.Entries[i]
		a, ok := argv[e.Key()]
		if !ok {
			continue
		}
		if e.at.remote != nil && len(a) > 0 {
			ed, old, now := e.remoteEdits(cfg.Src, cfg.Client, a)
			edits = append(edits, ed...)
			changes = append(changes, Change{Name: e.Name, Scope: e.Scope, Line: e.Line, Old: old, New: now})
			continue
		}
		if e.Status != Lockable && e.Status != Wrapped || e.at.command == nil || len(a) == 0 {
			return nil, nil, fmt.Errorf("%s: server %q cannot be rewritten (%s)", cfg.Path, e.Name, e.Status)
		}
		cmdText := jsonString(a[0])
		ch := Change{Name: e.Name, Scope: e.Scope, Line: e.Line,
			Old: jsonString(e.at.cmdKey) + ": " + string(cfg.Src[e.at.command.Start:e.at.command.End]),
			New: jsonString(e.at.cmdKey) + ": " + cmdText}
		edits = append(edits, jsonc.Edit{Start: e.at.command.Start, End: e.at.command.End, Text: cmdText})
		if e.at.args != nil {
			argsText := arrayLike(cfg.Src, e.at.args, a[1:])
			ch.Old += ", " + jsonString(e.at.argsKey) + ": " + oneLineJSON(cfg.Src[e.at.args.Start:e.at.args.End])
			ch.New += ", " + jsonString(e.at.argsKey) + ": " + oneLineJSON([]byte(argsText))
			edits = append(edits, jsonc.Edit{Start: e.at.args.Start, End: e.at.args.End, Text: argsText})
		} else {
			argsText := arrayLike(cfg.Src, nil, a[1:])
			ch.New += ", " + jsonString(e.at.argsKey) + ": " + argsText
			edits = append(edits, jsonc.Edit{Start: e.at.command.End, End: e.at.command.End,
				Text: ", " + jsonString(e.at.argsKey) + ": " + argsText})
		}
		changes = append(changes, ch)
	}
	out, err := jsonc.Apply(cfg.Src, edits)
	if err != nil {
		return nil, nil, err
	}
	if err := cfg.checkRewrite(out, argv); err != nil {
		return nil, nil, fmt.Errorf("%s: internal error, the rewrite did not read back as intended (nothing written): %w", cfg.Path, err)
	}
	return out, changes, nil
}

// checkRewrite parses out and compares it with the intent.
func (cfg *Config) checkRewrite(out []byte, argv map[Key][]string) error {
	again, err := Parse(cfg.Path, out, cfg.Client, cfg.Location)
	if err != nil {
		return err
	}
	if len(again.Entries) != len(cfg.Entries) {
		return fmt.Errorf("%d entries became %d", len(cfg.Entries), len(again.Entries))
	}
	for i, e := range again.Entries {
		before := cfg.Entries[i]
		want, changed := argv[before.Key()]
		wantEnv := before.EnvNames
		if !changed {
			want = before.Argv
		} else if before.at.remote != nil {
			wantEnv = sortedKeys(before.Endpoint.HeaderEnv)
		}
		if before.Status == Remote && !changed {
			if e.Status != Remote || e.Endpoint.URL != before.Endpoint.URL || e.Endpoint.Refused != before.Endpoint.Refused {
				return fmt.Errorf("remote server %q reads back changed", before.Name)
			}
			continue
		}
		if e.Key() != before.Key() || !slices.Equal(e.Argv, want) || !slices.Equal(e.EnvNames, wantEnv) {
			return fmt.Errorf("server %q reads back as %q", before.Name, e.Argv)
		}
	}
	return nil
}

// oneLineJSON shows an array's text on one line (comments inside dropped).
func oneLineJSON(b []byte) string {
	v, err := jsonc.Parse(b)
	if err != nil || v.Kind != jsonc.Array {
		return string(b)
	}
	var q []string
	for _, e := range v.Elems {
		q = append(q, string(b[e.Start:e.End]))
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// arrayLike writes items as a JSON array in the style of old: one item per
// line with old's indentation when old spans lines, else on one line.
func arrayLike(src []byte, old *jsonc.Value, items []string) string {
	var q []string
	for _, it := range items {
		q = append(q, jsonString(it))
	}
	if old == nil || len(old.Elems) == 0 || !bytes.ContainsRune(src[old.Start:old.Elems[0].Start], '\n') || len(q) == 0 {
		return "[" + strings.Join(q, ", ") + "]"
	}
	first := old.Elems[0].Start
	itemIndent := string(src[lineStart(src, first):first])
	closeIndent := string(src[lineStart(src, old.End-1) : old.End-1])
	if strings.TrimLeft(itemIndent, " \t") != "" || strings.TrimLeft(closeIndent, " \t") != "" {
		return "[" + strings.Join(q, ", ") + "]" // something else shares the line: keep it simple
	}
	nl := "\n"
	if bytes.Contains(src[old.Start:first], []byte("\r\n")) {
		nl = "\r\n"
	}
	return "[" + nl + itemIndent + strings.Join(q, ","+nl+itemIndent) + nl + closeIndent + "]"
}

func lineStart(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Change is what a write records of the entry: its command line before
// and after, and for a remote entry its whole text before (an undo puts
// it back).
func (e *Entry) Change(src []byte, after []string) EntryChange {
	ch := EntryChange{Scope: e.Scope, Name: e.Name, Before: e.Argv, After: after}
	if e.at.remote != nil && e.at.value != nil {
		ch.BeforeText = string(src[e.at.value.Start:e.at.value.End])
	}
	return ch
}
