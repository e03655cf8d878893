package lockfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// ValidName checks a server name (servers.<name>, --name): 1 to 64 letters,
// digits, '.', '_' or '-', starting with a letter or digit.
func ValidName(name string) error {
	if !validName(name) {
		return errf("server name %s: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", termtext.Quoted(name, 80))
	}
	return nil
}

func validName(name string) bool {
	if len(name) == 0 || len(name) > 64 || !isAlnum(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// ValidEnvName reports whether n is an environment variable name mcpsum
// accepts in envPassthrough: [A-Za-z_][A-Za-z0-9_]*.
func ValidEnvName(n string) bool {
	if n == "" || n[0] >= '0' && n[0] <= '9' {
		return false
	}
	for i := 0; i < len(n); i++ {
		if c := n[i]; !isAlnum(c) && c != '_' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Parse reads a lockfile strictly and recomputes every digest. path is used
// in messages only. Problems with the format are *FormatError; a digest that
// does not match its content is *IntegrityError. Items may appear in any
// order in the file; they are returned sorted by key.
func Parse(path string, data []byte) (*File, error) {
	f, _, err := parseFile(path, data, "")
	return f, err
}

// ParseDiscarding is Parse, except that an entry named discard that does not
// parse or does not match its digests is left out of the result instead of
// failing it; its error is returned as discarded (nil when the entry was
// fine or absent). Every other entry must be valid. It is the explicit
// recovery of `mcpsum lock --name N -- COMMAND...`, which replaces the
// broken entry N and says what it discarded.
func ParseDiscarding(path string, data []byte, discard string) (f *File, discarded, err error) {
	return parseFile(path, data, discard)
}

func parseFile(path string, data []byte, discard string) (*File, error, error) {
	f, entries, err := parseTop(path, data)
	if err != nil {
		return nil, nil, err
	}
	var discarded error
	forms := make(map[string]*canonForms, len(entries))
	for _, e := range entries {
		s, cf, ferr := parseServer(e.val, f.Version)
		if ferr != nil {
			ferr.File, ferr.Server = path, e.key
			if e.key == discard && discard != "" {
				discarded = ferr
				continue
			}
			return nil, nil, ferr
		}
		f.Servers[e.key], forms[e.key] = s, cf
	}
	names := make([]string, 0, len(f.Servers))
	for n := range f.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := verify(path, n, f.Servers[n], forms[n]); err != nil {
			if n == discard {
				discarded = err
				delete(f.Servers, n)
				continue
			}
			return nil, nil, err
		}
	}
	if discarded == nil {
		sum := sha256.Sum256(data)
		f.srcSum = &sum
	}
	return f, discarded, nil
}

// parseTop checks data as a whole (UTF-8, JSON, no merge conflict markers)
// and reads its top level: the File without servers, and the servers'
// members, each a name checked with ValidName.
func parseTop(path string, data []byte) (*File, []member, error) {
	parses.Add(1)
	fe := func(server, item string, err error) error {
		return &FormatError{File: path, Server: server, Item: item, Err: err}
	}
	if !utf8.Valid(data) {
		return nil, nil, fe("", "", errf("not valid UTF-8 (%s)", position(data, invalidUTF8At(data))))
	}
	if n := markerLine(data); n > 0 && !json.Valid(data) {
		return nil, nil, fe("", "", errf("%w (line %d): two branches changed it and git could not merge them", ErrMergeConflict, n))
	}
	if !json.Valid(data) {
		var probe json.RawMessage
		err := json.Unmarshal(data, &probe) // only for the error's position
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, nil, fe("", "", errf("not valid JSON at %s: %v", position(data, int(se.Offset)), se))
		}
		return nil, nil, fe("", "", errf("not valid JSON: %v", err))
	}
	top, err := objectMembers(data)
	if err != nil {
		return nil, nil, fe("", "top level", err)
	}
	f := &File{Servers: map[string]*Server{}}
	var servers json.RawMessage
	for _, m := range top {
		switch m.key {
		case "lockfileVersion":
			switch v := string(bytes.TrimSpace(m.val)); v {
			case "1", "2", "3":
				f.Version = int(v[0] - '0')
			default:
				return nil, nil, fe("", "lockfileVersion", errf("unsupported version %s: this mcpsum reads versions 1 to 3; a file of a newer version was written by a newer mcpsum: upgrade mcpsum (go install ./cmd/... in a fresh checkout of github.com/mcpsum/mcpsum)", termtext.Quoted(v, 80)))
			}
		case "generator":
			if f.Generator, err = asString(m.val); err != nil {
				return nil, nil, fe("", "generator", err)
			}
		case "servers":
			servers = m.val
		default:
			return nil, nil, fe("", "top level", errf("unknown key %s (want lockfileVersion, generator or servers)", termtext.Quoted(m.key, 80)))
		}
	}
	if f.Version == 0 {
		return nil, nil, fe("", "top level", errf("missing lockfileVersion"))
	}
	if servers == nil {
		return nil, nil, fe("", "top level", errf("missing servers"))
	}
	entries, err := objectMembers(servers)
	if err != nil {
		return nil, nil, fe("", "servers", err)
	}
	for _, e := range entries {
		if err := ValidName(e.key); err != nil {
			return nil, nil, fe("", "servers", err)
		}
	}
	return f, entries, nil
}

// parses counts Parse calls (tests check that a re-lock parses once).
var parses atomic.Int64

var entryKeys = []string{"command", "envPassthrough", "url", "headers", "oauth", "protocolVersion", "supportedVersions",
	"serverInfo", "instructions", "capabilities", "tools", "prompts", "resources",
	"resourceTemplates", "policy", "digests", "logProof"}

// parseServer decodes one entry strictly and normalizes it (items sorted),
// returning the canonical forms normalize computed.
func parseServer(raw json.RawMessage, version int) (*Server, *canonForms, *FormatError) {
	fe := func(item string, err error) (*Server, *canonForms, *FormatError) {
		return nil, nil, &FormatError{Item: item, Err: err}
	}
	ms, err := objectMembers(raw)
	if err != nil {
		return fe("", err)
	}
	s := &Server{}
	have := map[string]bool{}
	var digests json.RawMessage
	for _, m := range ms {
		have[m.key] = true
		switch m.key {
		case "command":
			s.Command, err = asStrings(m.val)
		case "envPassthrough":
			s.EnvPassthrough, err = asStrings(m.val)
		case "url":
			if version < VersionRemote {
				return fe("url", errf("a remote entry needs lockfileVersion %d, and this file says %d", VersionRemote, version))
			}
			s.URL, err = asString(m.val)
		case "headers":
			s.Headers, err = asStringMap(m.val)
		case "oauth":
			s.OAuth, err = parseOAuth(m.val)
		case "protocolVersion":
			s.ProtocolVersion, err = asString(m.val)
		case "supportedVersions":
			if version == 1 {
				return fe("supportedVersions", errf("a 2026-07-28 (modern) entry needs lockfileVersion 2, and this file says 1"))
			}
			s.SupportedVersions, err = asStrings(m.val)
		case "serverInfo":
			s.ServerInfo = m.val
		case "capabilities":
			s.Capabilities = m.val
		case "instructions":
			if kindOf(m.val) != 'n' {
				var ins string
				ins, err = asString(m.val)
				s.Instructions = &ins
				if err != nil {
					err = errf("want a string or null: %v", err)
				}
			}
		case "tools", "prompts", "resources", "resourceTemplates":
			i := indexOfField(m.key)
			if kindOf(m.val) != '[' {
				err = errf("want an array of items, got %s", typeName(m.val))
			} else {
				*s.items(i), err = arrayElements(m.val)
			}
		case "policy":
			p, ferr := parsePolicy(m.val)
			if ferr != nil {
				return nil, nil, ferr
			}
			s.Policy = p
		case "digests":
			digests = m.val
		case "logProof":
			s.LogProof, err = asLogProof(m.val)
		default:
			return fe("", errf("unknown key %s (want one of %s)", termtext.Quoted(m.key, 80), strings.Join(entryKeys, ", ")))
		}
		if err != nil {
			return fe(m.key, err)
		}
	}
	optional := map[string]bool{"supportedVersions": true, "policy": true, "logProof": true, "url": true, "headers": true, "oauth": true}
	if have["url"] { // a remote entry: url and headers instead of command and envPassthrough
		optional = map[string]bool{"supportedVersions": true, "policy": true, "logProof": true, "command": true, "envPassthrough": true, "oauth": true}
	}
	for _, k := range entryKeys {
		if !have[k] && !optional[k] {
			return fe("", errf("missing key %q", k))
		}
	}
	forms, ferr := normalize(s)
	if ferr != nil {
		return nil, nil, ferr
	}
	d, ferr := parseDigests(digests)
	if ferr != nil {
		return nil, nil, ferr
	}
	s.Digests = d
	for i, k := range mcpspec.Kinds {
		locked := *d.items(i)
		keys := map[string]bool{}
		for _, key := range forms.keys[i] {
			keys[key] = true
			if _, ok := locked[key]; !ok {
				return fe(k.Name+" "+termtext.Quoted(key, 80), errf("has no digest in digests.%s", k.Field))
			}
		}
		for _, key := range sortedKeys(locked) {
			if !keys[key] {
				return fe("digests."+k.Field, errf("has a digest for %s %s, which is not locked", k.Name, termtext.Quoted(key, 80)))
			}
		}
	}
	return s, forms, nil
}

func indexOfField(field string) int {
	for i, k := range mcpspec.Kinds {
		if k.Field == field {
			return i
		}
	}
	return -1
}

// parseDigests decodes the digests object strictly.
func parseDigests(raw json.RawMessage) (Digests, *FormatError) {
	fe := func(item string, err error) *FormatError { return &FormatError{Item: item, Err: err} }
	var d Digests
	ms, err := objectMembers(raw)
	if err != nil {
		return d, fe("digests", err)
	}
	have := map[string]bool{}
	for _, m := range ms {
		have[m.key] = true
		where := "digests." + m.key
		switch m.key {
		case "surface":
			if d.Surface, err = asString(m.val); err == nil {
				err = validDigest(d.Surface)
			}
		case "instructions":
			if kindOf(m.val) != 'n' {
				var s string
				if s, err = asString(m.val); err == nil {
					err = validDigest(s)
				}
				d.Instructions = &s
			}
		case "tools", "prompts", "resources", "resourceTemplates":
			var items []member
			if items, err = objectMembers(m.val); err != nil {
				break
			}
			dst := d.items(indexOfField(m.key))
			*dst = make(map[string]string, len(items))
			for _, it := range items {
				var s string
				if s, err = asString(it.val); err == nil {
					err = validDigest(s)
				}
				if err != nil {
					return d, fe(where+"["+termtext.Quoted(it.key, 80)+"]", err)
				}
				(*dst)[it.key] = s
			}
		default:
			return d, fe("digests", errf("unknown key %s (want surface, instructions, tools, prompts, resources or resourceTemplates)", termtext.Quoted(m.key, 80)))
		}
		if err != nil {
			return d, fe(where, err)
		}
	}
	for _, k := range []string{"surface", "instructions", "tools", "prompts", "resources", "resourceTemplates"} {
		if !have[k] {
			return d, fe("digests", errf("missing key %q", k))
		}
	}
	return d, nil
}

func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// position renders a byte offset as "line L, column C".
func position(data []byte, off int) string {
	if off > len(data) {
		off = len(data)
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return "line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col)
}

// LogProofHeader starts every logProof (C2SP tlog-proof, version 1).
const LogProofHeader = "c2sp.org/tlog-proof@v1\n"

// maxLogProof caps a logProof (a proof of a log of 2^40 records with a
// checkpoint cosigned by dozens of witnesses stays far below it).
const maxLogProof = 64 << 10

// asLogProof reads a logProof: a string holding a C2SP tlog-proof. Its
// content is checked by verify --offline against the log's key.
func asLogProof(raw json.RawMessage) (string, error) {
	p, err := asString(raw)
	switch {
	case err != nil:
		return "", err
	case len(p) > maxLogProof:
		return "", errf("over %d bytes", maxLogProof)
	case !strings.HasPrefix(p, LogProofHeader):
		return "", errf("not a C2SP tlog-proof (want a string starting %q)", LogProofHeader)
	}
	return p, nil
}
