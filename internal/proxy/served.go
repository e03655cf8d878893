package proxy

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/yosida95/uritemplate/v3"
)

// DefaultPageSize is how many items one served list page holds.
const DefaultPageSize = 100

// served is the locked surface, ready to be served to the client at once,
// before the server has even started (I4).
type served struct {
	lock      *lockfile.Server
	upEra     string                     // the era the server is spoken to in
	caps      map[string]json.RawMessage // locked capabilities
	tools     map[string]bool            // locked tool names
	prompts   map[string]bool            // locked prompt names
	uris      map[string]bool            // locked resource URIs
	tmplKeys  map[string]bool            // locked resource template strings
	tmplsOnce sync.Once
	tmpls     []*regexp.Regexp // what each locked template matches (compiled at first use: templates)
	taskTools map[string]bool  // locked tools that take a task (legacy execution.taskSupport)
	lists     [4]kindList
	pageSize  int

	legacyCaps, modernCaps json.RawMessage // what each client era is shown
	// what a client of a version before 2025-11-25 is shown in initialize
	oldCaps, oldInfo json.RawMessage
}

type kindList struct {
	method, field, capability string
	items                     []json.RawMessage
}

func newServed(lock *lockfile.Server, pageSize int) (*served, error) {
	if pageSize <= 0 {
		pageSize = DefaultPageSize
	}
	s := &served{lock: lock, upEra: lock.Era(), pageSize: pageSize}
	if err := json.Unmarshal(lock.Capabilities, &s.caps); err != nil || s.caps == nil {
		return nil, fmt.Errorf("locked capabilities are not a JSON object")
	}
	s.lists = [4]kindList{
		{"tools/list", "tools", "tools", lock.Tools},
		{"prompts/list", "prompts", "prompts", lock.Prompts},
		{"resources/list", "resources", "resources", lock.Resources},
		{"resources/templates/list", "resourceTemplates", "resources", lock.ResourceTemplates},
	}
	var err error
	if s.tools, err = nameSet(lockfile.KindTool, lock.Tools); err != nil {
		return nil, err
	}
	if s.prompts, err = nameSet(lockfile.KindPrompt, lock.Prompts); err != nil {
		return nil, err
	}
	if s.uris, err = nameSet(lockfile.KindResource, lock.Resources); err != nil {
		return nil, err
	}
	if s.tmplKeys, err = nameSet(lockfile.KindResourceTemplate, lock.ResourceTemplates); err != nil {
		return nil, err
	}
	s.taskTools = taskTools(lock.Tools)
	s.legacyCaps = lock.Capabilities
	s.modernCaps = withoutTasks(s.caps)
	switch legacy, modern := crossCaps(s.caps, s.upEra == lockfile.EraModern); {
	case legacy != nil:
		s.legacyCaps = withCaps(s.caps, legacy)
	case modern != nil:
		s.modernCaps = withCaps(s.caps, modern)
		var m map[string]json.RawMessage
		json.Unmarshal(s.modernCaps, &m)
		s.modernCaps = withoutTasks(m)
	}
	// Each legacy version gets its own era's members only (the published
	// schema of each version): extensions is 2026-07-28's; tasks and
	// serverInfo's description, icons and websiteUrl came in 2025-11-25.
	s.legacyCaps = withoutMembers(s.legacyCaps, "extensions")
	s.oldCaps = withoutMembers(s.legacyCaps, "tasks")
	s.oldInfo = withoutMembers(lock.ServerInfo, "description", "icons", "websiteUrl")
	return s, nil
}

// withoutMembers is the JSON object obj without the members names (obj
// itself when it has none of them).
func withoutMembers(obj json.RawMessage, names ...string) json.RawMessage {
	f, _, err := jsonline.Fields(obj, jsonline.Span{Start: 0, End: len(obj)}, names...)
	if err != nil {
		return obj
	}
	for i, name := range names {
		if f[i].OK() {
			obj = withoutMember(obj, jsonline.Span{Start: 0, End: len(obj)}, name)
		}
	}
	return obj
}

func nameSet(kind string, items []json.RawMessage) (map[string]bool, error) {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		k, err := lockfile.ItemKey(kind, it)
		if err != nil {
			return nil, err
		}
		m[k] = true
	}
	return m, nil
}

// withoutTasks returns the locked capabilities without "tasks", a
// legacy-only key (for a 2026-07-28 client: tasks became an extension).
// Resource subscriptions are relayed in all four era pairs, so
// resources.subscribe stays.
func withoutTasks(caps map[string]json.RawMessage) json.RawMessage {
	out := make(map[string]json.RawMessage, len(caps))
	for k, v := range caps {
		if k != "tasks" {
			out[k] = v
		}
	}
	return mustJSON(out)
}

// lockedURI reports whether uri is a locked resource or matches a locked
// resource template (RFC 6570, as go-sdk servers match them), or whether
// resources are data the server lists live (policy.unpinned).
func (s *served) lockedURI(uri string) bool {
	if s.lock.IsUnpinned("resources") || s.lock.IsUnpinned("resourceTemplates") {
		return true // the reviewer declared them data (policy.unpinned)
	}
	if s.uris[uri] {
		return true
	}
	for _, re := range s.templates() {
		if re.MatchString(uri) {
			return true
		}
	}
	return false
}

// templates are the expressions the locked resource templates match,
// compiled at the first resources/read that needs them: a proxy that reads
// no templated resource never runs the regexp compiler (its code and
// tables are pages of the binary every proxy would map; docs/performance.md).
func (s *served) templates() []*regexp.Regexp {
	s.tmplsOnce.Do(func() {
		for t := range s.tmplKeys {
			// A template that does not parse matches nothing (as in
			// go-sdk, whose servers route resources/read the same way).
			if tm, err := uritemplate.New(t); err == nil {
				s.tmpls = append(s.tmpls, tm.Regexp())
			}
		}
	})
	return s.tmpls
}

// has reports whether the locked capabilities advertise key.
func (s *served) has(key string) bool {
	v, ok := s.caps[key]
	return ok && string(v) != "null"
}

// initializeVersion picks the version the proxy answers a legacy client's
// initialize with: the client's own when the proxy can serve it (any legacy
// version not newer than the locked one, or any legacy version when the
// server is spoken to in 2026-07-28), else the locked one (or 2025-11-25).
func (s *served) initializeVersion(requested string) string {
	known := slices.Contains(mcpspec.LegacyVersions, requested)
	if s.upEra == lockfile.EraModern {
		if known {
			return requested
		}
		return mcpspec.LegacyVersion
	}
	if known && requested <= s.lock.ProtocolVersion {
		return requested
	}
	return s.lock.ProtocolVersion
}

// initializeResult is the InitializeResult served to a legacy client.
func (s *served) initializeResult(version string) []byte {
	b := []byte(`{"protocolVersion":`)
	b = jsonline.AppendJSON(b, version)
	b = append(b, `,"capabilities":`...)
	caps, info := s.legacyCaps, s.lock.ServerInfo
	if version < mcpspec.LegacyVersion { // the versions are dates
		caps, info = s.oldCaps, s.oldInfo
	}
	b = append(b, caps...)
	b = append(b, `,"serverInfo":`...)
	b = append(b, info...)
	if s.lock.Instructions != nil {
		b = append(b, `,"instructions":`...)
		b = jsonline.AppendJSON(b, *s.lock.Instructions)
	}
	return append(b, '}')
}

// supportedVersions is what the proxy lists in server/discover: the locked
// list (versions it knows) for a modern entry; for a legacy entry 2026-07-28
// (bridged) and the locked version.
func (s *served) supportedVersions() []string {
	if s.upEra == lockfile.EraModern {
		var out []string
		for _, v := range s.lock.SupportedVersions {
			if v == mcpspec.Modern || slices.Contains(mcpspec.LegacyVersions, v) {
				out = append(out, v)
			}
		}
		return out
	}
	return []string{mcpspec.Modern, s.lock.ProtocolVersion}
}

// discoverResult is the DiscoverResult served to a 2026-07-28 client.
func (s *served) discoverResult() []byte {
	b := []byte(`{"resultType":"complete","supportedVersions":`)
	b = jsonline.AppendJSON(b, s.supportedVersions())
	b = append(b, `,"capabilities":`...)
	b = append(b, s.modernCaps...)
	if s.lock.Instructions != nil {
		b = append(b, `,"instructions":`...)
		b = jsonline.AppendJSON(b, *s.lock.Instructions)
	}
	b = append(b, `,"ttlMs":0,"cacheScope":"public"`...)
	return s.appendServerInfoMeta(b)
}

func (s *served) appendServerInfoMeta(b []byte) []byte {
	b = append(b, `,"_meta":{"`+mcpspec.MetaServerInfo+`":`...)
	b = append(b, s.lock.ServerInfo...)
	return append(b, "}}"...)
}

// listKind returns the index of a list method in lists, or -1.
func (s *served) listKind(method string) int {
	for i, l := range s.lists {
		if l.method == method {
			return i
		}
	}
	return -1
}

const cursorPrefix = "mcpsum-page-"

// listResult serves one page of a locked list. Cursors are the proxy's own
// ("mcpsum-page-<offset>"); anything else is -32602.
// unpinnedList reports a list method whose list the entry's
// policy.unpinned leaves live (and the server declares): the server's own
// list is forwarded instead of the lock's.
func (s *served) unpinnedList(method string) bool {
	k := s.listKind(method)
	return s.lock.IsUnpinned(s.lists[k].field) && s.has(s.lists[k].capability)
}

func (s *served) listResult(kind int, cursor *string, modern bool) ([]byte, *jsonline.Error) {
	l := s.lists[kind]
	if !s.has(l.capability) {
		return nil, &jsonline.Error{Code: mcpspec.CodeMethodNotFound, Message: fmt.Sprintf("method not found: %s (the locked server does not advertise %q)", l.method, l.capability)}
	}
	off := 0
	if cursor != nil {
		n, err := strconv.Atoi(strings.TrimPrefix(*cursor, cursorPrefix))
		if !strings.HasPrefix(*cursor, cursorPrefix) || err != nil || n <= 0 || n >= len(l.items) || n%s.pageSize != 0 {
			return nil, &jsonline.Error{Code: mcpspec.CodeInvalidParams, Message: fmt.Sprintf("invalid cursor \"%s\" for %s", termtext.TruncateQuote(*cursor, 80), l.method)}
		}
		off = n
	}
	end := min(off+s.pageSize, len(l.items))
	b := []byte(`{`)
	if modern {
		b = append(b, `"resultType":"complete",`...)
	}
	b = append(b, '"')
	b = append(b, l.field...)
	b = append(b, `":[`...)
	for i, it := range l.items[off:end] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	b = append(b, ']')
	if end < len(l.items) {
		b = append(b, `,"nextCursor":`...)
		b = jsonline.AppendJSON(b, cursorPrefix+strconv.Itoa(end))
	}
	if !modern {
		return append(b, '}'), nil
	}
	b = append(b, `,"ttlMs":0,"cacheScope":"public"`...)
	return s.appendServerInfoMeta(b), nil
}

// withoutMember returns the object at sp without member name.
func withoutMember(line []byte, sp jsonline.Span, name string) []byte {
	out, _, _ := jsonscan.Without(line[:sp.End], sp.Start, func(key string) bool { return key == name })
	return out
}

const tasksExt = "io.modelcontextprotocol/tasks"

// legacyTasksCap is the tasks capability a legacy client is shown for a
// 2026-07-28 server that offers the extension (what the proxy bridges).
const legacyTasksCap = `{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`

// taskTools returns the locked tools that take a task (2025-11-25
// execution.taskSupport "optional" or "required").
func taskTools(tools []json.RawMessage) map[string]bool {
	m := map[string]bool{}
	for _, t := range tools {
		f, _, _ := jsonline.Fields(t, jsonline.Span{Start: 0, End: len(t)}, "name", "execution")
		xf, _, _ := jsonline.Fields(t, f[1], "taskSupport")
		name, ok := jsonline.StringAt(t, f[0])
		if ts, _ := jsonline.StringAt(t, xf[0]); ok && (ts == "optional" || ts == "required") {
			m[name] = true
		}
	}
	return m
}

// crossCaps adds what the proxy bridges to the capabilities each client era
// is shown: a legacy client in front of a 2026-07-28 server offering the
// tasks extension sees a tasks capability; a 2026-07-28 client in front of a
// legacy server with task-augmented tools/call sees the extension.
func crossCaps(caps map[string]json.RawMessage, upModern bool) (legacy, modern map[string]json.RawMessage) {
	if upModern {
		ef, _, _ := jsonline.Fields(caps["extensions"], jsonline.Span{Start: 0, End: len(caps["extensions"])}, tasksExt)
		if _, has := caps["tasks"]; ef[0].OK() && !has {
			legacy = map[string]json.RawMessage{"tasks": json.RawMessage(legacyTasksCap)}
		}
		return legacy, nil
	}
	t := caps["tasks"]
	rf, _, _ := jsonline.Fields(t, jsonline.Span{Start: 0, End: len(t)}, "requests")
	tf, _, _ := jsonline.Fields(t, rf[0], "tools")
	cf, _, _ := jsonline.Fields(t, tf[0], "call")
	if !cf[0].OK() {
		return nil, nil
	}
	ext := map[string]json.RawMessage{}
	if e := caps["extensions"]; len(e) > 0 {
		// Exact keys, a duplicate refused (not encoding/json's last-wins).
		_, err := jsonscan.Members(e, jsonscan.SkipWS(e, 0), func(k string, _, vs, ve int) error {
			if _, dup := ext[k]; dup {
				return jsonscan.ErrSyntax
			}
			ext[k] = json.RawMessage(e[vs:ve])
			return nil
		})
		if err != nil {
			return nil, nil
		}
	}
	ext[tasksExt] = json.RawMessage(`{}`)
	return nil, map[string]json.RawMessage{"extensions": mustJSON(ext)}
}

// withCaps is caps with over's members set.
func withCaps(caps map[string]json.RawMessage, over map[string]json.RawMessage) json.RawMessage {
	out := make(map[string]json.RawMessage, len(caps)+len(over))
	for k, v := range caps {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return mustJSON(out)
}
