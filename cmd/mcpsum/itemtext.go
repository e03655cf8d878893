package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Full text for review. Poisoning hides anywhere a model reads: the rest of a
// long description, a schema property's description, an enum, the
// instructions. So show (unless --compact) and verify's added and changed
// items print every word a server wrote, escaped, never cut.

// printTextBlock writes s line by line under indent, every line escaped;
// lines holding suspicious characters are flagged.
func printTextBlock(w io.Writer, indent, s string) {
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		q, sus := quoteText(strings.TrimSuffix(line, "\r"))
		flag := ""
		if sus {
			flag = "   !! SUSPICIOUS characters"
		}
		if q == "" {
			fmt.Fprintln(w)
			continue
		}
		fmt.Fprintf(w, "%s%s%s\n", indent, q, flag)
	}
}

// printItemFull writes one locked item in full: its description as text,
// then every other member except its key (title, annotations, schemas,
// arguments, icons, _meta, ...) as indented JSON, non-printable characters
// written as \u escapes.
func printItemFull(w io.Writer, indent, kind string, raw json.RawMessage) {
	keyField := lockfile.KeyField(kind)
	var desc *string
	var rest [][]byte
	_, err := jsonscan.Members(raw, jsonscan.SkipWS(raw, 0), func(key string, ks, vs, ve int) error {
		switch {
		case key == keyField:
		case key == "description" && desc == nil && raw[vs] == '"':
			s, err := jsonscan.Unquote(raw[vs:ve])
			if err != nil {
				return err
			}
			desc = &s
		default:
			rest = append(rest, raw[ks:ve])
		}
		return nil
	})
	if err != nil { // a lock item is valid JSON (checked on load); be safe anyway
		fmt.Fprintf(w, "%s%s\n", indent, oneLine(string(raw), 200))
		return
	}
	if desc != nil {
		fmt.Fprintf(w, "%sdescription:\n", indent)
		printTextBlock(w, indent+"  ", *desc)
	}
	if len(rest) == 0 {
		return
	}
	obj := append(append([]byte{'{'}, bytes.Join(rest, []byte{','})...), '}')
	fmt.Fprintf(w, "%sfields:\n", indent)
	indent += "  "
	var out bytes.Buffer
	if json.Indent(&out, obj, indent, "  ") != nil {
		fmt.Fprintf(w, "%s%s\n", indent, oneLine(string(obj), 200))
		return
	}
	fmt.Fprintf(w, "%s%s\n", indent, escapeForTerminal(out.Bytes()))
}

// escapeForTerminal is escapeInvisible plus invalid UTF-8 bytes as \ufffd:
// inside JSON strings both mean what a JSON reader would decode.
func escapeForTerminal(b []byte) []byte {
	if utf8.Valid(b) {
		return escapeInvisible(b)
	}
	return escapeInvisible(bytes.ToValidUTF8(b, []byte(`\ufffd`)))
}

// printServerInfoRest prints serverInfo's members beyond name, title and
// version (description, websiteUrl, icons, ...) in full, as JSON.
func printServerInfoRest(w io.Writer, raw json.RawMessage) {
	var rest [][]byte
	_, err := jsonscan.Members(raw, jsonscan.SkipWS(raw, 0), func(key string, ks, _, ve int) error {
		if key != "name" && key != "title" && key != "version" {
			rest = append(rest, raw[ks:ve])
		}
		return nil
	})
	if err != nil || len(rest) == 0 {
		return
	}
	obj := append(append([]byte{'{'}, bytes.Join(rest, []byte{','})...), '}')
	var out bytes.Buffer
	if json.Indent(&out, obj, "    ", "  ") != nil {
		return
	}
	fmt.Fprintf(w, "    %s\n", escapeForTerminal(out.Bytes()))
}
