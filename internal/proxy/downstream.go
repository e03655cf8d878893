package proxy

import (
	"errors"
	"fmt"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

func (p *Proxy) fromClient(line []byte) {
	env, id, err := jsonline.ScanEnvelope(line)
	switch {
	case err != nil:
		p.out.WriteLine(jsonline.ErrorLine(nil, &jsonline.Error{Code: mcpspec.CodeParseError, Message: "mcpsum: parse error: " + err.Error()}))
	case env.IsRequest():
		p.clientRequest(line, env, id)
	case env.IsNotification():
		p.clientNotification(line, env)
	case env.IsResponse():
		p.clientResponse(line, env, id)
	default:
		if !env.ID.OK() || env.NullID {
			id = nil
		}
		p.out.WriteLine(jsonline.ErrorLine(id, &jsonline.Error{Code: mcpspec.CodeInvalidRequest, Message: "mcpsum: invalid request: not a JSON-RPC request, notification or response"}))
	}
}

// paramsKeys are the members of a client request's params that the proxy or
// a policy hook acts on (the first seven by position in clientRequest);
// metaKeys those of its _meta. A case variant of any of them, or any
// member twice, refuses the request before anything is forwarded: a server
// that decodes into structs with encoding/json would run the variant.
var (
	paramsKeys = []string{"_meta", "name", "uri", "cursor", "ref", "requestState", "inputResponses", "arguments",
		"task", "level", "notifications", "taskId"}
	metaKeys = []string{mcpspec.MetaProtocolVersion, mcpspec.MetaClientCapabilities, metaLogLevel,
		metaRelatedTask, "progressToken"}
)

// paramsError is the refusal of a request whose params (at where) break the
// exact-key rule or are not an object.
func paramsError(method, where string, err error) *jsonline.Error {
	m := termtext.TruncateQuote(method, 80)
	var twin *jsonscan.TwinError
	var dup *jsonscan.DuplicateError
	switch {
	case errors.As(err, &twin):
		k, _ := termtext.Quote(twin.Key)
		return invalidParams("%s of \"%s\" holds \"%s\" beside or instead of %q: servers that ignore case would read one for the other, so mcpsum does not forward it; send each member once, spelled exactly", where, m, k, twin.Of)
	case errors.As(err, &dup):
		k, _ := termtext.Quote(dup.Key)
		return invalidParams("%s of \"%s\" holds member \"%s\" twice: servers differ on which one counts, so mcpsum does not forward it; send each member once", where, m, k)
	case err != nil && where == "params.arguments":
		return invalidParams("%s of \"%s\" cannot be read (%v)", where, m, err)
	}
	return invalidParams("%s of \"%s\" must be a JSON object", where, m)
}

func (p *Proxy) clientRequest(line []byte, env jsonline.Envelope, id []byte) {
	method, _ := jsonline.StringAt(line, env.Method)
	pf, isObj, err := jsonline.Fields(line, env.Params, paramsKeys...)
	if err != nil || !isObj {
		p.replyErr(id, paramsError(method, "params", err))
		return
	}
	mf, metaObj, err := jsonline.Fields(line, pf[0], metaKeys...)
	if err != nil || !metaObj {
		p.replyErr(id, paramsError(method, "params._meta", err))
		return
	}
	if pf[7].OK() {
		if err := jsonscan.FoldUnique(pf[7].Of(line)); err != nil {
			p.replyErr(id, paramsError(method, "params.arguments", err))
			return
		}
	}
	r := &request{line: line, env: env, id: id, method: method, meta: pf[0], modern: mf[0].OK(), logLevel: mf[2].OK()}
	if r.modern {
		v, _ := jsonline.StringAt(line, mf[0])
		if v != mcpspec.Modern {
			p.replyErr(id, &jsonline.Error{Code: mcpspec.CodeUnsupportedVersion, Message: "unsupported protocol version",
				Data: map[string]any{"supported": p.srv.supportedVersions(), "requested": v}})
			return
		}
		if !mf[1].OK() {
			p.replyErr(id, invalidParams("missing _meta %q", mcpspec.MetaClientCapabilities))
			return
		}
	}
	p.mu.Lock()
	q, legacy := p.gate.quarantine, p.client.legacy
	p.mu.Unlock()
	if q != nil {
		p.replyErr(id, q.rpc())
		return
	}
	if !r.modern && !legacy && method != "initialize" && method != "ping" && method != "server/discover" {
		p.replyErr(id, &jsonline.Error{Code: mcpspec.CodeInvalidRequest, Message: fmt.Sprintf("mcpsum: \"%s\" before initialize: send initialize first (or 2026-07-28 _meta on every request)", termtext.TruncateQuote(method, 80))})
		return
	}
	notFound := func() *jsonline.Error {
		return &jsonline.Error{Code: mcpspec.CodeMethodNotFound, Message: fmt.Sprintf("method not found: \"%s\"", termtext.TruncateQuote(method, 80))}
	}
	upModern := p.srv.upEra == mcpspec.EraModern
	p.noteClientInfo(line, r, env.Params)
	switch method {
	case "initialize", "server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		if !p.startupHealth(id) { // the client's health check (startup.go)
			return
		}
	}
	switch method {
	case "initialize":
		if r.modern {
			p.replyErr(id, notFound())
			return
		}
		p.initialize(line, env, id)
	case "server/discover":
		if !r.modern {
			p.replyErr(id, notFound())
			return
		}
		p.reply(id, p.srv.discoverResult())
	case "ping":
		if r.modern {
			p.replyErr(id, notFound())
			return
		}
		p.reply(id, []byte(`{}`))
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		if k := p.srv.listKind(method); p.srv.lock.IsUnpinned(p.srv.lists[k].field) && p.srv.has(p.srv.lists[k].capability) {
			p.beforeCall(r, "", p.submit) // data, not pinned (policy.unpinned): the server's live list
			return
		}
		var cursor *string
		if pf[3].OK() {
			s, ok := jsonline.StringAt(line, pf[3])
			if !ok {
				p.replyErr(id, invalidParams("cursor must be a string"))
				return
			}
			cursor = &s
		}
		res, e := p.srv.listResult(p.srv.listKind(method), cursor, r.modern)
		if e != nil {
			p.replyErr(id, e)
			return
		}
		p.reply(id, res)
	case "tools/call", "prompts/get", "resources/read":
		if r.modern && !upModern && pf[5].OK() && p.bridgeRetryFromClient(r, pf[5], pf[6]) {
			return
		}
		// A held roots/list goes first (roots.go); only for calls that pass
		// the proxy's checks.
		withRoots := func(r *request) *request {
			if r.modern && !upModern {
				return p.rootsForCall(r, pf[5], pf[6])
			}
			return r
		}
		if method == "resources/read" {
			uri, ok := jsonline.StringAt(line, pf[2])
			if !ok {
				p.replyErr(id, invalidParams("resources/read needs a string uri"))
				return
			}
			if e := p.checkURI(uri); e != nil {
				p.replyErr(id, e)
				return
			}
			if r = withRoots(r); r != nil {
				p.beforeCall(r, uri, p.submit)
			}
			return
		}
		name, ok := jsonline.StringAt(line, pf[1])
		kind, locked := "tool", p.srv.tools
		if method == "prompts/get" {
			kind, locked = "prompt", p.srv.prompts
		}
		if !ok || !locked[name] {
			q, _ := termtext.Quote(name)
			p.replyErr(id, invalidParams("unknown %s \"%s\": it is not in the lock for server %q, so mcpsum does not forward it", kind, q, p.opts.Name))
			return
		}
		if r = withRoots(r); r == nil {
			return
		}
		if method == "tools/call" {
			r.task = p.taskMode(r, name)
		}
		p.beforeCall(r, name, p.submit)
	case "completion/complete":
		if e := p.checkCompletionRef(line, pf[4]); e != nil {
			p.replyErr(id, e)
			return
		}
		p.beforeCall(r, "", p.submit)
	case "logging/setLevel":
		if r.modern {
			p.replyErr(id, notFound())
			return
		}
		if upModern {
			pl, _, _ := jsonline.Fields(line, env.Params, "level")
			lvl, _ := jsonline.StringAt(line, pl[0])
			p.mu.Lock()
			p.client.logLevel = lvl
			p.mu.Unlock()
			p.reply(id, []byte(`{}`))
			return
		}
		p.beforeCall(r, "", p.submit)
	case "resources/subscribe", "resources/unsubscribe":
		if r.modern {
			p.replyErr(id, notFound())
			return
		}
		uri, ok := jsonline.StringAt(line, pf[2])
		if !ok {
			p.replyErr(id, invalidParams("%s needs a string uri", method))
			return
		}
		if e := p.checkURI(uri); e != nil {
			p.replyErr(id, e)
			return
		}
		if upModern {
			p.legacySubscribe(id, uri, method == "resources/subscribe")
			return
		}
		p.beforeCall(r, uri, p.submit)
	case "subscriptions/listen":
		if !r.modern {
			p.replyErr(id, notFound())
			return
		}
		p.listen(line, env, id)
	case "tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "tasks/update":
		p.taskRequest(r, notFound)
	default:
		e := notFound()
		e.Message = fmt.Sprintf("method not found: mcpsum proxy does not forward \"%s\"", termtext.TruncateQuote(method, 80))
		p.replyErr(id, e)
	}
}

// checkURI refuses a resource URI that is neither a locked resource nor
// matched by a locked resource template, like an unlocked tool.
func (p *Proxy) checkURI(uri string) *jsonline.Error {
	if p.srv.lockedURI(uri) {
		return nil
	}
	q, _ := termtext.Quote(uri)
	return invalidParams("unknown resource \"%s\": it is neither a locked resource nor matched by a locked resource template of server %q, so mcpsum does not forward it", q, p.opts.Name)
}

// checkCompletionRef refuses completions for prompts that are not locked.
func (p *Proxy) checkCompletionRef(line []byte, ref jsonline.Span) *jsonline.Error {
	rf, ok, err := jsonline.Fields(line, ref, "type", "name", "uri")
	if err != nil || !ok || !ref.OK() {
		return invalidParams("completion/complete needs a ref object")
	}
	switch t, _ := jsonline.StringAt(line, rf[0]); t {
	case "ref/prompt":
		name, _ := jsonline.StringAt(line, rf[1])
		if !p.srv.prompts[name] {
			q, _ := termtext.Quote(name)
			return invalidParams("unknown prompt \"%s\": it is not in the lock for server %q", q, p.opts.Name)
		}
	case "ref/resource":
		uri, _ := jsonline.StringAt(line, rf[2])
		if !p.srv.tmplKeys[uri] && !p.srv.lockedURI(uri) {
			return p.checkURI(uri)
		}
	}
	return nil
}
