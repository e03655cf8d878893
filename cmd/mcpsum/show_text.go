package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/mcpwire"
)

// quoteText renders server-written text for a terminal (see termtext.Quote).
func quoteText(s string) (string, bool) { return termtext.Quote(s) }

// quoteArg renders a command-line word so that it can be pasted back into a
// shell and never carries raw control characters.
func quoteArg(s string) string { return termtext.ShellArg(s) }

func quoteArgs(args []string) string { return termtext.ShellArgs(args) }

// oneLine is the first line of text, escaped and cut to max runes.
func oneLine(s string, max int) string {
	first, rest, more := strings.Cut(strings.TrimSpace(s), "\n")
	q, _ := quoteText(strings.TrimRight(first, "\r"))
	r := []rune(q)
	if len(r) > max {
		return string(r[:max]) + "…"
	}
	if more && strings.TrimSpace(rest) != "" {
		return q + " …"
	}
	return q
}

func printShow(w io.Writer, path string, v *showFile) {
	fmt.Fprintf(w, "%s: lockfileVersion %d", path, v.LockfileVersion)
	if v.Generator != "" {
		fmt.Fprintf(w, ", written by %s", oneLine(v.Generator, 40))
	}
	servers := fmt.Sprintf("%d server(s)", v.total)
	if len(v.order) < v.total {
		servers += fmt.Sprintf(", showing %s", strings.Join(v.order, ", "))
	}
	fmt.Fprintf(w, "; %s; all digests verified\n", servers)
	for _, n := range v.order {
		printServer(w, n, v.Servers[n], v.compact)
	}
}

func printServer(w io.Writer, name string, s *showServer, compact bool) {
	fmt.Fprintf(w, "\nserver %s\n", quoteArg(name))
	if s.Remote {
		printRemote(w, s)
	} else {
		fmt.Fprintf(w, "  command       %s\n", quoteArgs(s.Command))
		printProgram(w, s)
		fmt.Fprintf(w, "  env           %s\n", envLine(s.EnvPassthrough, s.Policy != nil && s.Policy.Sandbox != nil))
	}
	if s.Era == mcpspec.EraModern {
		fmt.Fprintf(w, "  era           modern (server/discover), protocolVersion %s, supports %s\n",
			oneLine(s.ProtocolVersion, 20), oneLine(strings.Join(s.SupportedVersions, ", "), 120))
	} else {
		fmt.Fprintf(w, "  era           legacy (initialize), protocolVersion %s\n", oneLine(s.ProtocolVersion, 20))
	}
	fmt.Fprintf(w, "  serverInfo    %s\n", serverInfoLine(s.ServerInfo))
	switch {
	case s.LogKey == "":
		fmt.Fprintf(w, "  log key       none: private (%s; never looked up)\n", privateWhy(s.URL != ""))
	case s.LogProof:
		fmt.Fprintf(w, "  log key       %s (proof stored)\n", quoteArg(s.LogKey))
	default:
		fmt.Fprintf(w, "  log key       %s\n", quoteArg(s.LogKey))
	}
	if !compact {
		printServerInfoRest(w, s.ServerInfo)
	}
	if s.Instructions == nil {
		fmt.Fprintf(w, "  instructions  none\n")
	} else {
		flag := ""
		if s.Instructions.Suspicious {
			flag = "  !! SUSPICIOUS characters"
		}
		if compact {
			fmt.Fprintf(w, "  instructions  %d chars, %s%s  %s\n", s.Instructions.Chars, s.Instructions.Digest, flag, oneLine(s.Instructions.text, 80))
		} else {
			fmt.Fprintf(w, "  instructions  %d chars, %s%s\n", s.Instructions.Chars, s.Instructions.Digest, flag)
			printTextBlock(w, "    ", s.Instructions.text)
		}
	}
	fmt.Fprintf(w, "  surface       %s\n", s.Surface)
	fmt.Fprintf(w, "  counts        %d tools, %d prompts, %d resources, %d templates\n",
		s.Counts["tools"], s.Counts["prompts"], s.Counts["resources"], s.Counts["resourceTemplates"])
	for _, k := range s.EmptyAdvertised {
		fmt.Fprintf(w, "  empty         %s: advertised by the server, but it listed none or answered -32601 (method not found), locked as none; a later real list is drift\n", k)
	}
	if s.Suspicious > 0 {
		fmt.Fprintf(w, "  !! %d item(s) contain control, ANSI, bidi or zero-width characters: review them before trusting this server\n", s.Suspicious)
	}
	for _, k := range mcpspec.Kinds {
		items := s.Items[k.Field]
		if len(items) == 0 {
			continue
		}
		if s.Policy != nil && slices.Contains(s.Policy.Unpinned, k.Field) {
			fmt.Fprintf(w, "  %s (as seen at lock time; data, not pinned: the proxy serves the server's live list)\n", k.Field)
		} else {
			fmt.Fprintf(w, "  %s\n", k.Field)
		}
		for _, it := range items {
			if compact {
				printItemLine(w, it)
				continue
			}
			key, _ := quoteText(it.Key)
			fmt.Fprintf(w, "    %s  %s", key, it.Digest)
			if a := annotationSummary(it.Annotations); a != "" {
				fmt.Fprintf(w, "  [%s]", a)
			}
			fmt.Fprintln(w)
			printItemFull(w, "      ", k.Name, it.Definition)
			if len(it.Suspicious) > 0 {
				fmt.Fprintf(w, "      !! SUSPICIOUS characters in: %s\n", oneLine(strings.Join(it.Suspicious, ", "), 200))
			}
		}
	}
	printPolicy(w, s)
	printReview(w, s)
}

// printItemLine is an item in --compact: one line, its key, the start of its
// digest, the start of its description, and a flag if it needs a full review.
func printItemLine(w io.Writer, it item) {
	key, _ := quoteText(it.Key)
	digest := it.Digest
	if len(digest) > len("sha256:")+12 {
		digest = digest[:len("sha256:")+12] + "…"
	}
	fmt.Fprintf(w, "    %s  %s", key, digest)
	if it.Description != "" {
		fmt.Fprintf(w, "  %s", oneLine(it.Description, 100))
	}
	if len(it.Suspicious) > 0 {
		fmt.Fprintf(w, "  !! SUSPICIOUS characters in: %s", oneLine(strings.Join(it.Suspicious, ", "), 100))
	}
	fmt.Fprintln(w)
}

func serverInfoLine(raw json.RawMessage) string {
	// Exact keys, as a client reads them: encoding/json would take a
	// "NAME" member for "name".
	f, err := jsonscan.Fields(raw, "name", "title", "version")
	if err != nil {
		return oneLine(string(raw), 100)
	}
	name, _ := jsonscan.String(f[0])
	title, _ := jsonscan.String(f[1])
	version, _ := jsonscan.String(f[2])
	out := oneLine(name, 60)
	if version != "" {
		out += " " + oneLine(version, 30)
	}
	if title != "" {
		out += " (" + oneLine(title, 60) + ")"
	}
	return out
}

// annotationSummary lists the hints a server declared, as it declared them.
func annotationSummary(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return "annotations unreadable"
	}
	var parts []string
	for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
		if v, ok := m[k]; ok {
			parts = append(parts, strings.TrimSuffix(k, "Hint")+"="+oneLine(string(v), 10))
		}
	}
	return strings.Join(parts, " ")
}

func printPolicy(w io.Writer, s *showServer) {
	p := s.Policy
	if p == nil {
		fmt.Fprintf(w, "  policy        none (no taint tracking, no sandbox)\n")
		return
	}
	if p.Taint != nil {
		fmt.Fprintf(w, "  taint sources %s\n", listOrNone(p.Taint.Sources))
		fmt.Fprintf(w, "  taint sinks   %s\n", listOrNone(p.Taint.Sinks))
	}
	if sb := p.Sandbox; sb != nil {
		fmt.Fprintf(w, "  sandbox read  %s\n", listOrNone(sb.Filesystem.Read))
		fmt.Fprintf(w, "  sandbox write %s (plus its private ${TMP})\n", listOrNone(sb.Filesystem.Write))
		if len(sb.Network.Allow) == 0 {
			fmt.Fprintf(w, "  network       none\n")
		} else {
			fmt.Fprintf(w, "  network       only %s, through the audited egress proxy\n", strings.Join(sb.Network.Allow, ", "))
		}
	}
	if len(p.Unpinned) > 0 {
		fmt.Fprintf(w, "  not pinned    %s (declared data: changes are not drift, verify does not check them)\n", strings.Join(p.Unpinned, ", "))
	}
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	q := make([]string, len(l))
	for i, s := range l {
		q[i], _ = quoteText(s)
	}
	return strings.Join(q, ", ")
}

// writeJSON prints v as indented JSON. Runes that could fool a terminal or a
// reader (bidi controls, zero-width and other invisible or non-printable
// characters a server may have written) are written as \uXXXX escapes: the
// JSON means the same, and `mcpsum show --json` in a terminal stays inert.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeInvisible(buf.Bytes()))
	return err
}

// escapeInvisible rewrites non-printable runes of encoded JSON as \u escapes
// (as UTF-16 surrogate pairs above U+FFFF), and a server's \u escapes of
// printable characters (go-sdk servers write > as \u003e) as the character,
// so a reader sees "a > b". encoding/json has already escaped control
// characters and invalid UTF-8, and such runes can only stand inside
// strings, so the result is equivalent JSON.
func escapeInvisible(b []byte) []byte {
	b = unescapePrintable(b)
	var out []byte
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r < utf8.RuneSelf || unicode.IsPrint(r) {
			out = append(out, b[i:i+size]...)
			i += size
			continue
		}
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		} else {
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += size
	}
	return out
}

// unescapePrintable replaces each \uXXXX escape (a surrogate pair counts
// as one) of a printable character other than '"' and '\\' by the
// character; every other escape stays as it is.
func unescapePrintable(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] != 'u' {
			out = append(out, b[i], b[i+1])
			i++
			continue
		}
		r, n := hexRune(b[i:])
		if n > 0 && utf16.IsSurrogate(r) {
			if r2, n2 := hexRune(b[i+n:]); n2 > 0 && utf16.DecodeRune(r, r2) != unicode.ReplacementChar {
				r, n = utf16.DecodeRune(r, r2), n+n2
			}
		}
		if n == 0 || r == '"' || r == '\\' || !unicode.IsPrint(r) {
			out = append(out, b[i])
			continue
		}
		out = utf8.AppendRune(out, r)
		i += n - 1
	}
	return out
}

// hexRune reads a \uXXXX escape at the start of b: its rune and length 6,
// or 0 when b does not start with one.
func hexRune(b []byte) (rune, int) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, 0
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, 0
		}
	}
	return r, 6
}

// envLine says exactly which variables the server gets: the base ones mcpsum
// always passes (when set), the entry's envPassthrough, nothing else.
func envLine(pass []string, sandboxed bool) string {
	base := strings.Join(mcpwire.BaseEnv(), ", ")
	if sandboxed {
		base += " (TMPDIR set to the sandbox's own)"
	}
	if len(pass) == 0 {
		return base + " when set; every other variable is withheld"
	}
	return base + " when set, and " + strings.Join(pass, ", ") + "; every other variable is withheld"
}
