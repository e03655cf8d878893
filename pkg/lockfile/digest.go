package lockfile

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// NewServer checks a freshly observed server entry, brings it into the
// canonical shape (items compacted and sorted by key, nil lists made empty)
// and fills s.Digests:
//
//   - each item: "sha256:" + hex(sha256(JCS(item)));
//   - instructions: the same over the JSON string, nil when there are none;
//   - surface: the same over the whole entry without "digests" and "policy"
//     (command, envPassthrough, protocolVersion, supportedVersions, serverInfo,
//     instructions, capabilities and all items).
//
// It refuses (with a *FormatError naming the item) more than MaxItems items
// of a kind, non-object items, items
// without a string key, duplicate keys, duplicate JSON object keys, invalid
// UTF-8, and numbers that change when canonicalised (9007199254740993, 1e400;
// 0.1 and 1.0 are fine), so that two different surfaces never share a digest.
// A policy, if set, is validated against the tools.
func NewServer(s *Server) error {
	forms, ferr := normalize(s)
	if ferr != nil {
		return ferr
	}
	d, err := computeDigests(s, forms)
	if err != nil {
		return err
	}
	s.Digests = d
	return nil
}

// MaxItems is the most items of one kind (tools, prompts, resources,
// resource templates) a server entry may hold (LOCKFILE.md).
const MaxItems = mcpspec.MaxItems

// canonForms are the RFC 8785 forms of a normalized server's JSON values,
// computed once while checking them (the items sorted like the server's).
type canonForms struct {
	items                    [4][][]byte
	keys                     [4][]string
	serverInfo, capabilities []byte
}

// normalize validates s and canonicalises its shape, returning the canonical
// forms it computed on the way. Errors are *FormatError with Item set; the
// caller fills File and Server.
func normalize(s *Server) (*canonForms, *FormatError) {
	forms := &canonForms{}
	fe := func(item string, err error) (*canonForms, *FormatError) {
		return nil, &FormatError{Item: item, Err: err}
	}
	if s.URL != "" || s.Headers != nil || s.OAuth != nil {
		if ferr := checkRemote(s); ferr != nil {
			return nil, ferr
		}
	} else if len(s.Command) == 0 || s.Command[0] == "" {
		return fe("command", errf("want a non-empty argv whose first element is the program"))
	}
	for i, a := range s.Command {
		if !utf8.ValidString(a) || strings.IndexByte(a, 0) >= 0 {
			return fe("command", errf("argument %d is not valid UTF-8 or contains a NUL byte", i))
		}
	}
	if s.EnvPassthrough == nil && !s.Remote() {
		s.EnvPassthrough = []string{}
	}
	seen := map[string]bool{}
	for _, n := range s.EnvPassthrough {
		if !ValidEnvName(n) {
			return fe("envPassthrough", errf("%s is not an environment variable name", termtext.Quoted(n, 80)))
		}
		if seen[n] {
			return fe("envPassthrough", errf("%s is listed twice", termtext.Quoted(n, 80)))
		}
		seen[n] = true
	}
	if s.ProtocolVersion == "" || !utf8.ValidString(s.ProtocolVersion) {
		return fe("protocolVersion", errf("want a non-empty protocol version"))
	}
	if s.SupportedVersions != nil {
		found := false
		for _, v := range s.SupportedVersions {
			if !utf8.ValidString(v) {
				return fe("supportedVersions", errf("a version is not valid UTF-8"))
			}
			found = found || v == s.ProtocolVersion
		}
		if !found {
			return fe("supportedVersions", errf("does not list protocolVersion %s", termtext.Quoted(s.ProtocolVersion, 80)))
		}
	}
	var err error
	if s.ServerInfo, forms.serverInfo, err = checkObject(s.ServerInfo); err != nil {
		return fe("serverInfo", err)
	}
	if s.Capabilities, forms.capabilities, err = checkObject(s.Capabilities); err != nil {
		return fe("capabilities", err)
	}
	if s.Instructions != nil && !utf8.ValidString(*s.Instructions) {
		return fe("instructions", errf("not valid UTF-8"))
	}
	for i, k := range mcpspec.Kinds {
		list := s.items(i)
		if *list == nil {
			*list = []json.RawMessage{}
		}
		if len(*list) > MaxItems {
			return fe(k.Field, errf("%d items: a lockfile holds at most %d per kind, and mcpsum never truncates", len(*list), MaxItems))
		}
		keys := make([]string, len(*list))
		canon := make([][]byte, len(*list))
		byKey := make(map[string]int, len(*list))
		for j, it := range *list {
			c, cf, key, err := checkItem(it, k.Key)
			if err != nil {
				item := k.Name + " " + termtext.Quoted(key, 80)
				if key == "" {
					item = k.Name + " #" + strconv.Itoa(j)
				}
				return fe(item, err)
			}
			if prev, dup := byKey[key]; dup {
				return fe(k.Name+" "+termtext.Quoted(key, 80), errf("listed twice (items %d and %d); keys must be unique", prev, j))
			}
			byKey[key] = j
			(*list)[j], keys[j], canon[j] = c, key, cf
		}
		sortItems(*list, keys, canon)
		forms.items[i], forms.keys[i] = canon, keys
	}
	if s.Policy != nil {
		if err := checkPolicy(s.Policy, s.Tools); err != nil {
			return nil, err
		}
	}
	return forms, nil
}

// checkObject validates a raw JSON object and returns it compacted, and its
// canonical form.
func checkObject(raw json.RawMessage) (json.RawMessage, []byte, error) {
	if len(raw) == 0 {
		return nil, nil, errf("missing (want a JSON object)")
	}
	if !utf8.Valid(raw) {
		return nil, nil, errf("not valid UTF-8 JSON")
	}
	if k := kindOf(raw); k != '{' {
		if !json.Valid(raw) {
			return nil, nil, errf("not valid UTF-8 JSON")
		}
		return nil, nil, errf("want an object, got %s", typeName(raw))
	}
	c, err := appendCanonical(make([]byte, 0, len(raw)), raw, true)
	if err != nil {
		return nil, nil, err
	}
	return compact(raw), c, nil
}

// checkItem validates one raw item and returns it compacted, its canonical
// form and its key. The key is returned even on some errors so the message
// can name the item.
func checkItem(raw json.RawMessage, keyField string) (json.RawMessage, []byte, string, error) {
	if !utf8.Valid(raw) {
		return nil, nil, "", errf("not valid UTF-8 JSON")
	}
	if kindOf(raw) != '{' {
		if !json.Valid(raw) {
			return nil, nil, "", errf("not valid UTF-8 JSON")
		}
		return nil, nil, "", errf("item is not a JSON object (got %s)", typeName(raw))
	}
	c, compacted, key, err := canonicalItem(raw, keyField)
	if err != nil {
		if key == "" { // name the item if its key can be read at all
			key, _ = itemKey(raw, keyField)
		}
		return nil, nil, key, err
	}
	return compacted, c, key, nil
}

type byKeys struct {
	items []json.RawMessage
	keys  []string
	canon [][]byte
}

func (b byKeys) Len() int           { return len(b.keys) }
func (b byKeys) Less(i, j int) bool { return b.keys[i] < b.keys[j] }
func (b byKeys) Swap(i, j int) {
	b.items[i], b.items[j] = b.items[j], b.items[i]
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
	b.canon[i], b.canon[j] = b.canon[j], b.canon[i]
}

func sortItems(items []json.RawMessage, keys []string, canon [][]byte) {
	if !sort.IsSorted(byKeys{items, keys, canon}) {
		sort.Stable(byKeys{items, keys, canon})
	}
}

// computeDigests computes every digest of a normalized server (items valid,
// compact and sorted by key).
//
// The surface digest is defined as sha256 over JCS(the entry without
// "digests" and "policy"), i.e. over JCS of appendEntry(s, false). Rather than
// canonicalising every item a second time inside the entry, the canonical
// entry is assembled from the items' canonical forms: JCS sorts the entry's
// (ASCII) keys, and a canonical array is its canonical elements joined by
// commas. TestSurfaceComposition checks this equals the definition.
func computeDigests(s *Server, forms *canonForms) (Digests, error) {
	var d Digests
	canon := forms.items
	for i := range mcpspec.Kinds {
		items := *s.items(i)
		m := make(map[string]string, len(items))
		if len(canon[i]) != len(items) {
			return d, &FormatError{Item: mcpspec.Kinds[i].Field, Err: errf("changed after it was checked")}
		}
		for j, c := range canon[i] {
			m[forms.keys[i][j]] = digestOf(c)
		}
		*d.items(i) = m
	}
	if s.Instructions != nil {
		dg := digestOf(jcsString(nil, *s.Instructions))
		d.Instructions = &dg
	}
	serverInfo, capabilities := forms.serverInfo, forms.capabilities
	strs := func(b []byte, list []string) []byte {
		b = append(b, '[')
		for i, v := range list {
			if i > 0 {
				b = append(b, ',')
			}
			b = jcsString(b, v)
		}
		return append(b, ']')
	}
	items := func(b []byte, list [][]byte) []byte {
		b = append(b, '[')
		for i, c := range list {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, c...)
		}
		return append(b, ']')
	}
	// Keys in RFC 8785 order (UTF-16 code units; all ASCII here).
	size := 1024 + len(serverInfo) + len(capabilities)
	for _, list := range canon {
		for _, c := range list {
			size += len(c) + 1
		}
	}
	b := append(make([]byte, 0, size), `{"capabilities":`...)
	b = append(b, capabilities...)
	if s.Remote() {
		b = jcsHeaders(append(b, `,"headers":`...), s.Headers)
	} else {
		b = strs(append(b, `,"command":`...), s.Command)
		b = strs(append(b, `,"envPassthrough":`...), s.EnvPassthrough)
	}
	b = append(b, `,"instructions":`...)
	if s.Instructions == nil {
		b = append(b, "null"...)
	} else {
		b = jcsString(b, *s.Instructions)
	}
	if s.OAuth != nil {
		b = jcsOAuth(append(b, `,"oauth":`...), s.OAuth)
	}
	b = items(append(b, `,"prompts":`...), canon[1])
	b = jcsString(append(b, `,"protocolVersion":`...), s.ProtocolVersion)
	b = items(append(b, `,"resourceTemplates":`...), canon[3])
	b = items(append(b, `,"resources":`...), canon[2])
	b = append(append(b, `,"serverInfo":`...), serverInfo...)
	if s.SupportedVersions != nil {
		b = strs(append(b, `,"supportedVersions":`...), s.SupportedVersions)
	}
	b = items(append(b, `,"tools":`...), canon[0])
	if s.Remote() {
		b = jcsString(append(b, `,"url":`...), s.URL)
	}
	b = append(b, '}')
	d.Surface = digestOf(b)
	return d, nil
}

// jcsString appends the RFC 8785 form of a string (valid UTF-8): only '"',
// '\\' and control characters are escaped, with the short forms \b \f \n \r
// \t and \u00xx (lower-case hex) for the rest.
func jcsString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// verify compares the digests written in s with those of its content. It
// checks instructions and items first (they name what changed) and the
// surface last.
func verify(file, name string, s *Server, forms *canonForms) error {
	got, err := computeDigests(s, forms)
	if err != nil {
		fe := err.(*FormatError)
		fe.File, fe.Server = file, name
		return fe
	}
	ie := func(kind, item, locked, computed string) error {
		return &IntegrityError{File: file, Server: name, Kind: kind, Item: item, Locked: locked, Computed: computed}
	}
	if l, c := orNull(s.Digests.Instructions), orNull(got.Instructions); l != c {
		return ie("instructions", "", l, c)
	}
	for i, k := range mcpspec.Kinds {
		locked := *s.Digests.items(i)
		for _, key := range forms.keys[i] { // sorted, like the items
			if c := (*got.items(i))[key]; locked[key] != c {
				return ie(k.Name, key, locked[key], c)
			}
		}
	}
	if s.Digests.Surface != got.Surface {
		return ie("surface", "", s.Digests.Surface, got.Surface)
	}
	return nil
}

func orNull(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
