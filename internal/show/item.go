package show

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Full text for review. Poisoning hides anywhere a model reads: the rest of a
// long description, a schema property's description, an enum, the
// instructions. So show (unless --compact) and verify's added and changed
// items write every word a server wrote, escaped, never cut.

// WriteTextBlock writes s line by line under indent, every line escaped;
// lines holding suspicious characters are flagged.
func WriteTextBlock(w io.Writer, indent, s string) {
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		q, sus := termtext.Quote(strings.TrimSuffix(line, "\r"))
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

// WriteItem writes one locked item in full: its description as text, then
// every other member except its key (title, annotations, schemas,
// arguments, icons, _meta, ...) as indented JSON, non-printable characters
// written as \u escapes.
func WriteItem(w io.Writer, indent, kind string, raw json.RawMessage) {
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
		WriteTextBlock(w, indent+"  ", *desc)
	}
	if len(rest) == 0 {
		return
	}
	fmt.Fprintf(w, "%sfields:\n", indent)
	writeMembers(w, indent+"  ", rest, true)
}

// writeMembers writes the JSON members as one indented object, inert for a
// terminal; an object that does not indent is written cut to one line when
// fallback is set.
func writeMembers(w io.Writer, indent string, members [][]byte, fallback bool) {
	obj := append(append([]byte{'{'}, bytes.Join(members, []byte{','})...), '}')
	out, err := lockfile.Indent(nil, obj, indent) // as deep as the lockfile indents, then compact
	if err != nil {
		if fallback {
			fmt.Fprintf(w, "%s%s\n", indent, oneLine(string(obj), 200))
		}
		return
	}
	fmt.Fprintf(w, "%s%s\n", indent, termtext.InertJSON(out))
}

// writeServerInfoRest writes serverInfo's members beyond name, title and
// version (description, websiteUrl, icons, ...) in full, as JSON.
func writeServerInfoRest(w io.Writer, raw json.RawMessage) {
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
	writeMembers(w, "    ", rest, false)
}

// writeRemote writes the lines that say where a remote server is.
func writeRemote(w io.Writer, s *Server) {
	fmt.Fprintf(w, "  remote        %s (Streamable HTTP; mcpsum connects only to this origin)\n", quoteArg(s.URL))
	if len(s.Headers) == 0 {
		fmt.Fprintf(w, "  headers       none\n")
	} else {
		names := make([]string, 0, len(s.Headers))
		for n := range s.Headers {
			names = append(names, n)
		}
		sort.Strings(names)
		for i, n := range names {
			names[i] = n + " from $" + s.Headers[n]
		}
		fmt.Fprintf(w, "  headers       %s (values are never stored)\n", strings.Join(names, ", "))
	}
	writeOAuth(w, s.OAuth)
}

// writeOAuth writes the pinned sign-in: a reviewer sees who issues the
// tokens, what they are for and what they may do.
func writeOAuth(w io.Writer, o *OAuthPin) {
	if o == nil {
		fmt.Fprintf(w, "  oauth         none\n")
		return
	}
	fmt.Fprintf(w, "  oauth         issuer %s (the authorization server that issues its tokens)\n", quoteArg(o.Issuer))
	fmt.Fprintf(w, "                resource %s (its tokens are sent only to URLs it covers)\n", quoteArg(o.Resource))
	scopes := "none asked (the authorization server's default)"
	if len(o.Scopes) > 0 {
		q := make([]string, len(o.Scopes))
		for i, sc := range o.Scopes {
			q[i] = quoteArg(sc)
		}
		scopes = strings.Join(q, " ")
	}
	fmt.Fprintf(w, "                scopes %s\n", scopes)
	if o.ClientID != "" {
		secret := "a public client"
		if o.ClientSecretEnv != "" {
			secret = "its secret from $" + o.ClientSecretEnv + ", never stored"
		}
		fmt.Fprintf(w, "                client %s (%s)\n", quoteArg(o.ClientID), secret)
	}
}

// WriteJSON writes v as indented JSON, inert for a terminal (see
// termtext.InertJSON): `mcpsum show --json` in a terminal shows bidi or
// zero-width characters a server wrote as \u escapes, meaning the same.
func WriteJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(termtext.InertJSON(buf.Bytes()))
	return err
}
