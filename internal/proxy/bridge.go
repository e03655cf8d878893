package proxy

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Era bridging of requests. A request crosses to the server with only its id
// replaced when both sides speak the same era. A legacy client's request to
// a 2026-07-28 server gains the per-request _meta the server requires
// (protocol version, the capabilities and clientInfo the client declared in
// initialize, the log level it set). A 2026-07-28 client's request to a
// legacy server loses the io.modelcontextprotocol/ keys of its _meta, which
// legacy servers may reject. Everything else keeps its bytes.

// edit replaces b[s:e] with repl (an insertion when s == e).
type edit struct {
	s, e int
	repl []byte
}

// applyEdits returns b with the edits applied, as pieces sharing b's memory.
func applyEdits(b []byte, edits []edit) [][]byte {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].s < edits[j].s })
	parts := make([][]byte, 0, 2*len(edits)+1)
	at := 0
	for _, e := range edits {
		parts = append(parts, b[at:e.s], e.repl)
		at = e.e
	}
	return append(parts, b[at:])
}

// upstreamParts is r as sent to the server under id u; extra holds members
// to add to params (an MRTR retry's inputResponses and requestState).
func (p *Proxy) upstreamParts(r *request, u int64, extra []byte) [][]byte {
	line := r.line
	edits := []edit{{r.env.ID.Start, r.env.ID.End, itoa(u)}}
	upModern := p.srv.upEra == lockfile.EraModern
	switch r.task {
	case taskToModern: // the task member becomes the extension, declared in _meta
		if nr, err := r.withParams(withoutMember(line, r.env.Params, "task")); err == nil {
			r, line = nr, nr.line
			edits[0] = edit{r.env.ID.Start, r.env.ID.End, itoa(u)}
		}
	case taskToLegacy: // the extension becomes the task member
		if extra == nil {
			extra = []byte(`"task":{}`)
		} else {
			extra = append(append(append([]byte(nil), extra...), ','), `"task":{}`...)
		}
	}
	switch {
	case !r.modern && upModern:
		edits = append(edits, p.injectMeta(r, extra)...)
	case r.modern && !upModern && r.meta.OK():
		edits = append(edits, edit{r.meta.Start, r.meta.End, stripReserved(line, r.meta)})
	}
	if extra != nil && !(!r.modern && upModern) {
		edits = append(edits, insertMembers(line, r.env, extra)...)
	}
	return applyEdits(line, edits)
}

// injectMeta adds the 2026-07-28 _meta members (and extra) to r's params.
func (p *Proxy) injectMeta(r *request, extra []byte) []edit {
	line, env := r.line, r.env
	m := p.modernMetaWith(r.task == taskToModern)
	withExtra := func(b []byte) []byte {
		if extra != nil {
			b = append(append(b, ','), extra...)
		}
		return b
	}
	switch {
	case !env.Params.OK():
		b := withExtra(append(append([]byte(`,"params":{"_meta":{`), m...), '}'))
		return []edit{{env.Close, env.Close, append(b, '}')}}
	case !r.meta.OK():
		b := withExtra(append(append([]byte(`"_meta":{`), m...), '}'))
		if !emptyObject(line, env.Params.Start) {
			b = append(b, ',')
		}
		return []edit{{env.Params.Start + 1, env.Params.Start + 1, b}}
	}
	b := append([]byte(nil), m...)
	if !emptyObject(line, r.meta.Start) {
		b = append(b, ',')
	}
	edits := []edit{{r.meta.Start + 1, r.meta.Start + 1, b}}
	if extra != nil {
		edits = append(edits, edit{env.Params.Start + 1, env.Params.Start + 1, append(append([]byte(nil), extra...), ',')})
	}
	return edits
}

// insertMembers adds members to params (creating params when absent).
func insertMembers(line []byte, env jsonline.Envelope, members []byte) []edit {
	if !env.Params.OK() {
		b := append(append([]byte(`,"params":{`), members...), '}')
		return []edit{{env.Close, env.Close, b}}
	}
	b := append([]byte(nil), members...)
	if !emptyObject(line, env.Params.Start) {
		b = append(b, ',')
	}
	return []edit{{env.Params.Start + 1, env.Params.Start + 1, b}}
}

// modernMetaWith is the members of the _meta a legacy client's requests
// carry to a 2026-07-28 server; tasks adds the tasks extension to the
// declared capabilities (a task-augmented call, or the proxy's own task
// requests).
func (p *Proxy) modernMetaWith(tasks bool) []byte {
	p.mu.Lock()
	caps, info, level := p.client.caps, p.client.info, p.client.logLevel
	p.mu.Unlock()
	if len(info) == 0 || info[0] != '{' {
		info = p.clientInfoJSON()
	}
	b := []byte(`"` + mcpspec.MetaProtocolVersion + `":"` + mcpspec.Modern + `","` + mcpspec.MetaClientCapabilities + `":`)
	b = append(b, modernClientCaps(caps, tasks)...)
	b = append(b, `,"`+mcpspec.MetaClientInfo+`":`...)
	b = append(b, info...)
	if level != "" {
		b = append(b, `,"`+metaLogLevel+`":`...)
		b = jsonline.AppendJSON(b, level)
	}
	return b
}

// modernClientCaps translates legacy client capabilities: roots loses
// listChanged, tasks is dropped (an extension in 2026-07-28, declared when
// tasks is set). The members are read by exact key: capabilities holding a
// duplicate or a case variant of a member it acts on declare nothing, as
// they do for the proxy's own checks (declared).
func modernClientCaps(legacy json.RawMessage, tasks bool) json.RawMessage {
	m := exactObject(legacy, "tasks", "extensions", "roots")
	delete(m, "tasks")
	if tasks {
		ext := exactObject(m["extensions"], tasksExt)
		ext[tasksExt] = []byte(`{}`)
		m["extensions"] = objectOf(ext)
	}
	if _, ok := m["roots"]; ok {
		m["roots"] = []byte(`{}`)
	}
	return objectOf(m)
}

// exactObject returns the members of the JSON object v by key; empty when
// v is not an object, or holds a duplicate member or a case variant of one
// of names (jsonscan.ExactMembers).
func exactObject(v []byte, names ...string) map[string][]byte {
	m := map[string][]byte{}
	i := jsonscan.SkipWS(v, 0)
	end, err := jsonscan.ExactMembers(v, i, names, func(key string, _, vs, ve int) error {
		m[key] = v[vs:ve]
		return nil
	})
	if err != nil || jsonscan.SkipWS(v, end) != len(v) {
		return map[string][]byte{}
	}
	return m
}

// objectOf writes members as one JSON object, keys sorted, values compacted.
func objectOf(members map[string][]byte) json.RawMessage {
	ks := make([]string, 0, len(members))
	for k := range members {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range ks {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonline.AppendJSON(nil, k))
		b.WriteByte(':')
		if json.Compact(&b, members[k]) != nil {
			b.WriteString("null")
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// stripReserved returns the _meta object at sp without its
// io.modelcontextprotocol/ members.
func stripReserved(line []byte, sp jsonline.Span) []byte {
	out, _, _ := jsonscan.Without(line[:sp.End], sp.Start, func(key string) bool {
		return strings.HasPrefix(key, "io.modelcontextprotocol/")
	})
	return out
}

// needsBridge reports whether a forwarded request's result may need MRTR
// bridging (so the request is kept): a call that can return input_required
// or provoke server->client requests while the two sides speak different eras.
func (p *Proxy) needsBridge(r *request) bool {
	switch r.method {
	case "tools/call", "prompts/get", "resources/read":
		return r.modern != (p.srv.upEra == lockfile.EraModern)
	}
	return false
}
