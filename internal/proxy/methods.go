package proxy

import (
	"fmt"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// The client's requests, by table: for each method the proxy serves, which
// client era may send it, whether it is one of the client's start-up health
// checks, what of it must be in the lock, and whether it reaches the server
// (through the policy hooks, then the gate) or the proxy answers it. The
// era rules are the era, early, retry, roots and route columns; the
// dispatch (clientMethod.run) applies the columns in one order for every
// method. A method not in the table is not forwarded.

var clientMethods = map[string]clientMethod{
	"initialize":               {era: eraLegacyClient, early: true, health: true, route: routeAnswered, serve: (*Proxy).answerInitialize},
	"server/discover":          {era: eraModernClient, early: true, health: true, route: routeAnswered, serve: (*Proxy).answerDiscover},
	"ping":                     {era: eraLegacyClient, early: true, route: routeAnswered, serve: (*Proxy).answerPing},
	"tools/list":               {era: eraAnyClient, health: true, route: routeGatedWhenUnpinned, serve: (*Proxy).answerList},
	"prompts/list":             {era: eraAnyClient, health: true, route: routeGatedWhenUnpinned, serve: (*Proxy).answerList},
	"resources/list":           {era: eraAnyClient, health: true, route: routeGatedWhenUnpinned, serve: (*Proxy).answerList},
	"resources/templates/list": {era: eraAnyClient, health: true, route: routeGatedWhenUnpinned, serve: (*Proxy).answerList},
	"tools/call":               {era: eraAnyClient, retry: true, lock: lockedTool, roots: true, route: routeGated, serve: (*Proxy).forwardToolCall},
	"prompts/get":              {era: eraAnyClient, retry: true, lock: lockedPrompt, roots: true, route: routeGated},
	"resources/read":           {era: eraAnyClient, retry: true, lock: lockedResource, roots: true, route: routeGated},
	"completion/complete":      {era: eraAnyClient, lock: lockedCompletionRef, route: routeGated},
	"logging/setLevel":         {era: eraLegacyClient, route: routeGatedToLegacyServer, serve: (*Proxy).answerSetLevel},
	"resources/subscribe":      {era: eraLegacyClient, lock: lockedResource, route: routeGatedToLegacyServer, serve: (*Proxy).answerSubscribe},
	"resources/unsubscribe":    {era: eraLegacyClient, lock: lockedResource, route: routeGatedToLegacyServer, serve: (*Proxy).answerSubscribe},
	"subscriptions/listen":     {era: eraModernClient, route: routeAnswered, serve: (*Proxy).answerListen},
	"tasks/get":                {era: eraAnyClient, route: routeGated, serve: (*Proxy).forwardTask},
	"tasks/cancel":             {era: eraAnyClient, route: routeGated, serve: (*Proxy).forwardTask},
	"tasks/result":             {era: eraLegacyClient, route: routeGated, serve: (*Proxy).forwardTask},
	"tasks/list":               {era: eraLegacyClient, route: routeGated, serve: (*Proxy).forwardTask},
	"tasks/update":             {era: eraModernClient, route: routeGated, serve: (*Proxy).forwardTask},
}

// clientMethod is one row of the table.
type clientMethod struct {
	era    methodEra   // the client era that may send it; the other gets method not found
	early  bool        // a legacy client may send it before initialize
	health bool        // one of the client's start-up health checks: it waits for the server's handshake (startup.go)
	retry  bool        // a 2026-07-28 client's retry (requestState) of a call the era bridge holds for a legacy server goes to the bridge (mrtr.go)
	lock   lockRule    // what of its params must be in the lock; anything else is refused before it goes on
	roots  bool        // for a 2026-07-28 client of a legacy server, a roots/list the server asked meanwhile goes first (roots.go)
	route  methodRoute // whether it reaches the server
	// serve is the proxy's part: its answer (route routeAnswered, or the
	// case of its route where the proxy answers), or how a routeGated call is
	// sent (nil: through the hooks, then the gate: forward).
	serve func(p *Proxy, c clientCall)
}

// methodEra says which client era may send a method.
type methodEra uint8

const (
	eraAnyClient    methodEra = iota
	eraLegacyClient           // a 2026-07-28 request of it is method not found
	eraModernClient           // a legacy request of it is method not found
)

func (e methodEra) allows(modern bool) bool {
	return e == eraAnyClient || (e == eraModernClient) == modern
}

// route says whether a method reaches the server.
type methodRoute uint8

const (
	routeAnswered            methodRoute = iota // the proxy answers it (from the lock, or its own state)
	routeGated                                  // through the policy hooks, then the gate (held while a check runs)
	routeGatedWhenUnpinned                      // routeGated when the entry's policy.unpinned leaves that list live, else routeAnswered from the lock
	routeGatedToLegacyServer                    // routeGated to a legacy server; a 2026-07-28 server has no such method, and the proxy answers it
)

// lockRule is what of a request's params must be in the lock.
type lockRule uint8

const (
	lockedNothing       lockRule = iota
	lockedTool                   // params.name is a locked tool
	lockedPrompt                 // params.name is a locked prompt
	lockedResource               // params.uri is a locked resource or matches a locked template
	lockedCompletionRef          // params.ref names a locked prompt or resource (template)
)

// The members of a client request's params the proxy reads (paramsKeys,
// by position).
const (
	paramMeta = iota
	paramName
	paramURI
	paramCursor
	paramRef
	paramRequestState
	paramInputResponses
	paramArguments
)

// clientCall is a client request being dispatched by the table (passed
// by value: no allocation per request).
type clientCall struct {
	*request
	params []jsonline.Span // the members of paramsKeys, by position
	target string          // what the lock check read: the tool's or prompt's name, the resource URI
}

// run dispatches c by the row m: the columns in one order for every method.
func (m clientMethod) run(p *Proxy, c clientCall) {
	if m.health && !p.startupHealth(c.id) { // the client's health check (startup.go)
		return
	}
	if !m.era.allows(c.modern) {
		p.replyErr(c.id, methodNotFound(c.method))
		return
	}
	upModern := p.srv.upEra == mcpspec.EraModern
	crossEra := c.modern && !upModern
	if m.retry && crossEra && c.params[paramRequestState].OK() && p.bridgeRetryFromClient(c.request, c.params[paramRequestState], c.params[paramInputResponses]) {
		return
	}
	if e := p.checkLocked(m.lock, &c); e != nil {
		p.replyErr(c.id, e)
		return
	}
	switch {
	case m.route == routeAnswered,
		m.route == routeGatedWhenUnpinned && !p.srv.unpinnedList(c.method),
		m.route == routeGatedToLegacyServer && upModern:
		m.serve(p, c)
		return
	}
	if m.roots && crossEra {
		if c.request = p.rootsForCall(c.request, c.params[paramRequestState], c.params[paramInputResponses]); c.request == nil {
			return
		}
	}
	if m.serve != nil && m.route == routeGated {
		m.serve(p, c)
		return
	}
	p.beforeCall(c.request, c.target, p.submit)
}

// checkLocked applies a row's lock rule and records the target it read.
func (p *Proxy) checkLocked(rule lockRule, c *clientCall) *jsonline.Error {
	switch rule {
	case lockedTool, lockedPrompt:
		name, ok := jsonline.StringAt(c.line, c.params[paramName])
		kind, locked := "tool", p.srv.tools
		if rule == lockedPrompt {
			kind, locked = "prompt", p.srv.prompts
		}
		if !ok || !locked[name] {
			q, _ := termtext.Quote(name)
			return invalidParams("unknown %s \"%s\": it is not in the lock for server %q, so mcpsum does not forward it", kind, q, p.opts.Name)
		}
		c.target = name
	case lockedResource:
		uri, ok := jsonline.StringAt(c.line, c.params[paramURI])
		if !ok {
			return invalidParams("%s needs a string uri", c.method)
		}
		if e := p.checkURI(uri); e != nil {
			return e
		}
		c.target = uri
	case lockedCompletionRef:
		return p.checkCompletionRef(c.line, c.params[paramRef])
	}
	return nil
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

func methodNotFound(method string) *jsonline.Error {
	return &jsonline.Error{Code: mcpspec.CodeMethodNotFound, Message: fmt.Sprintf("method not found: \"%s\"", termtext.TruncateQuote(method, 80))}
}

// The proxy's part of each method (serve).

func (p *Proxy) answerInitialize(c clientCall) { p.initialize(c.line, c.env, c.id) }
func (p *Proxy) answerDiscover(c clientCall)   { p.reply(c.id, p.srv.discoverResult()) }
func (p *Proxy) answerPing(c clientCall)       { p.reply(c.id, []byte(`{}`)) }
func (p *Proxy) answerListen(c clientCall)     { p.listen(c.line, c.env, c.id) }

// answerList answers a list from the lock, a page at a time.
func (p *Proxy) answerList(c clientCall) {
	var cursor *string
	if sp := c.params[paramCursor]; sp.OK() {
		s, ok := jsonline.StringAt(c.line, sp)
		if !ok {
			p.replyErr(c.id, invalidParams("cursor must be a string"))
			return
		}
		cursor = &s
	}
	res, e := p.srv.listResult(p.srv.listKind(c.method), cursor, c.modern)
	if e != nil {
		p.replyErr(c.id, e)
		return
	}
	p.reply(c.id, res)
}

// forwardToolCall forwards a tools/call, bridging a task across eras
// (tasks.go).
func (p *Proxy) forwardToolCall(c clientCall) {
	c.task = p.taskMode(c.request, c.target)
	p.beforeCall(c.request, c.target, p.submit)
}

// answerSetLevel keeps a legacy client's log level for a 2026-07-28
// server, which takes it on each request's _meta.
func (p *Proxy) answerSetLevel(c clientCall) {
	pl, _, _ := jsonline.Fields(c.line, c.env.Params, "level")
	lvl, _ := jsonline.StringAt(c.line, pl[0])
	p.mu.Lock()
	p.client.logLevel = lvl
	p.mu.Unlock()
	p.reply(c.id, []byte(`{}`))
}

// answerSubscribe subscribes a legacy client through a 2026-07-28
// server's listen stream (subscribe.go).
func (p *Proxy) answerSubscribe(c clientCall) {
	p.legacySubscribe(c.id, c.target, c.method == "resources/subscribe")
}

// forwardTask sends a task method (taskops.go).
func (p *Proxy) forwardTask(c clientCall) { p.taskRequest(c.request) }
