package policy

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Elicit is what a client can show: whether it declared elicitation with
// form mode, and whether to name the mode (2025-06-18 clients must not get
// one).
type Elicit int

// Elicit values.
const (
	ElicitNone   Elicit = iota // no elicitation (or url mode only)
	ElicitForm                 // form mode, "mode":"form" sent
	ElicitNoMode               // form mode, no "mode" key (2025-06-18)
)

// Call is one client request the proxy is about to forward: a tools/call,
// prompts/get or resources/read. The proxy keeps the same *Call until the
// result is delivered: BeforeCall records in it what BeforeResult needs.
type Call struct {
	Method string // tools/call, prompts/get, resources/read
	Name   string // the tool or prompt name, or the resource URI
	Params []byte // the request's params object as the client sent it
	Modern bool   // a 2026-07-28 request
	Elicit Elicit // what the client declared (legacy: at initialize; modern: in this request)

	source, sink bool
	checked      bool
	args         []byte
	digest       string
	state        State
}

// Action is what the proxy does with a call.
type Action int

// Actions.
const (
	Forward Action = iota // send it to the server (with Verdict.Params when set)
	Ask                   // send the client an elicitation/create with Verdict.Elicit, then call Answered
	Respond               // answer the client with Verdict.Result or Verdict.Err; do not forward
)

// RPCError is a JSON-RPC error for the client.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return e.Message }

// CodeRefused is the JSON-RPC error code of a prompts/get or resources/read
// the taint policy refused (outside the spec's reserved range). A tools/call
// is refused with a tool result (isError), which the model and user see.
const CodeRefused = -31006

// Verdict is the guard's decision on a call.
type Verdict struct {
	Action Action
	Params []byte    // Forward: the params to send instead of the client's (the proxy's own fields removed)
	Elicit []byte    // Ask: params of the elicitation/create for the client
	Result []byte    // Respond: a result object
	Err    *RPCError // Respond: an error instead of a result
}

// Config configures a Guard for one locked server.
type Config struct {
	Server  string          // the entry's name in mcp.lock
	Taint   *lockfile.Taint // the entry's policy.taint (nil: the guard lets everything through)
	Surface string          // the entry's digests.surface
	Session Session
	Store   *Store
	Audit   *Audit
	// Signer signs 2026-07-28 approvals. nil: such clients are refused as
	// if they could not show a prompt (KeyErr says why).
	Signer *Signer
	KeyErr error
	// Warn receives problems that do not change a decision (an audit line
	// that could not be written). nil drops them.
	Warn func(string)
}

// Guard is the taint policy of one server in one client session.
type Guard struct {
	cfg                      Config
	sources, sinks           map[string]bool
	allResources, allPrompts struct{ source, sink bool }
	now                      func() time.Time
}

// NewGuard returns the guard for cfg.
func NewGuard(cfg Config) *Guard {
	g := &Guard{cfg: cfg, sources: map[string]bool{}, sinks: map[string]bool{}, now: time.Now}
	if cfg.Taint != nil {
		for _, n := range cfg.Taint.Sources {
			g.sources[n] = true
		}
		for _, n := range cfg.Taint.Sinks {
			g.sinks[n] = true
		}
	}
	g.allResources.source, g.allResources.sink = g.sources[lockfile.AllResources], g.sinks[lockfile.AllResources]
	g.allPrompts.source, g.allPrompts.sink = g.sources[lockfile.AllPrompts], g.sinks[lockfile.AllPrompts]
	return g
}

// Active reports whether the server has any taint label.
func (g *Guard) Active() bool { return len(g.sources)+len(g.sinks) > 0 }

// Role says whether a request is a source and/or a sink, exactly as the
// seed defines them: tools by name, resources:* for every resources/read,
// prompts:* for every prompts/get.
func (g *Guard) Role(method, name string) (source, sink bool) {
	switch method {
	case "tools/call":
		if name == lockfile.AllResources || name == lockfile.AllPrompts {
			return false, false // the wildcards name methods, never a tool
		}
		return g.sources[name], g.sinks[name]
	case "resources/read":
		return g.allResources.source, g.allResources.sink
	case "prompts/get":
		return g.allPrompts.source, g.allPrompts.sink
	case UnknownTaskResult:
		// A task's result whose creating tools/call the proxy forgot: it
		// may be any tool's, so it is a source's when any tool is one.
		for name, src := range g.sources {
			if src && name != lockfile.AllResources && name != lockfile.AllPrompts {
				return true, false
			}
		}
	}
	return false, false
}

// UnknownTaskResult is the method of a task's result whose creating call
// is not known (proxy.UnknownTaskResult): see Role.
const UnknownTaskResult = "tasks/result"

func (g *Guard) audit(c *Call, r Record) {
	r.Session, r.Server, r.Method = g.cfg.Session.ID, g.cfg.Server, c.Method
	if c.Method != "resources/read" {
		r.Tool = c.Name
	}
	if r.ArgsDigest == "" {
		r.ArgsDigest = c.digest
	}
	if err := g.cfg.Audit.Write(r); err != nil && g.cfg.Warn != nil {
		g.cfg.Warn("taint audit log: " + err.Error())
	}
}

// BeforeCall decides a call before it is forwarded.
func (g *Guard) BeforeCall(c *Call) Verdict {
	c.source, c.sink = g.Role(c.Method, c.Name)
	c.checked = true
	if !c.sink {
		f, err := jsonscan.Fields(c.Params, "requestState")
		if err != nil {
			return g.refuse(c, AnswerInvalid, "the request's params are not a JSON object with unique keys", false)
		}
		if st, ok := jsonscan.String(f[0]); ok && strings.HasPrefix(st, StatePrefix) {
			// The proxy's own state on a call it never asked about: a
			// replay onto another tool. The server must not see it.
			return g.refuse(c, AnswerInvalid, ErrStateMismatch.Error(), true)
		}
		return Verdict{Action: Forward}
	}
	pf, err := jsonscan.Fields(c.Params, "arguments", "uri", "requestState", "inputResponses")
	if err == nil && !json.Valid(c.Params) {
		err = jsonscan.ErrSyntax
	}
	if err != nil {
		return g.refuse(c, AnswerInvalid, "the request's params are not a JSON object with unique keys", false)
	}
	c.args = pf[0]
	if c.Method == "resources/read" {
		c.args = pf[1]
	}
	if c.args != nil {
		if err := jsonscan.FoldUnique(c.args); err != nil {
			// Which of two such members a server runs depends on how it
			// decodes; the user could be shown the other.
			return g.refuse(c, AnswerInvalid, "its arguments are ambiguous, a server may run what a prompt would not show: "+err.Error(), false)
		}
	}
	c.digest = ArgsDigest(c.args)
	if c.Modern && pf[2] != nil {
		var st string
		if json.Unmarshal(pf[2], &st) == nil && strings.HasPrefix(st, StatePrefix) {
			return g.retry(c, st, pf[3])
		}
	}
	c.state = g.cfg.Store.Check(g.cfg.Session.ID)
	if !c.state.Tainted() {
		g.audit(c, Record{Role: "sink", Decision: "allowed"})
		return Verdict{Action: Forward}
	}
	if c.state.Problem == "" && c.state.Granted(g.cfg.Server, c.Method, c.Name, c.digest, g.cfg.Surface) {
		g.audit(c, Record{Role: "sink", Tainted: true, TaintedBy: taintedBy(&c.state), Answer: "session-grant", Decision: "allowed"})
		return Verdict{Action: Forward}
	}
	msg, err := g.promptMessage(c)
	if err != nil && c.Elicit != ElicitNone {
		return g.refuse(c, AnswerInvalid, err.Error(), false)
	}
	switch {
	case c.Elicit == ElicitNone:
		return g.refuse(c, AnswerUnavailable, "", true)
	case c.Modern && g.cfg.Signer == nil:
		reason := "approvals of 2026-07-28 clients need the approval key"
		if g.cfg.KeyErr != nil {
			reason += ": " + g.cfg.KeyErr.Error()
		}
		return g.refuse(c, AnswerUnavailable, reason, true)
	case c.Modern:
		// A retry of the server's own input_required round: its state and
		// answers travel inside the proxy's signed state and are restored
		// once the user approved.
		var up *string
		if pf[2] != nil {
			var s string
			if json.Unmarshal(pf[2], &s) != nil {
				return g.refuse(c, AnswerInvalid, "requestState is not a string", true)
			}
			up = &s
		}
		if len(pf[3]) > maxCarried {
			return g.refuse(c, AnswerInvalid, "inputResponses is too large to carry through an approval", true)
		}
		state := g.cfg.Signer.Issue(g.binding(c), Carry{State: up, Responses: pf[3]})
		g.audit(c, Record{Role: "sink", Tainted: true, TaintedBy: taintedBy(&c.state), Asked: "input_required", Decision: "asked"})
		return Verdict{Action: Respond, Result: g.inputRequired(c, state, msg)}
	default:
		return Verdict{Action: Ask, Elicit: g.elicitParams(c, msg)}
	}
}

func (g *Guard) binding(c *Call) Binding {
	return Binding{Method: c.Method, Server: g.cfg.Server, Name: c.Name, ArgsDigest: c.digest, Surface: g.cfg.Surface, Session: g.cfg.Session.ID, Taint: c.state.Epoch}
}

// retry handles a 2026-07-28 retry that carries the proxy's own requestState.
func (g *Guard) retry(c *Call, state string, responses []byte) Verdict {
	c.state = g.cfg.Store.Check(g.cfg.Session.ID)
	if g.cfg.Signer == nil {
		return g.refuse(c, AnswerInvalid, "the approval key is not available", true)
	}
	grant, err := g.cfg.Signer.Open(state, g.binding(c))
	if err != nil {
		return g.refuse(c, AnswerInvalid, err.Error(), true)
	}
	if c.state.Tainted() {
		// Single use across every proxy of the session and restarts (an
		// untainted session runs its sinks without approval anyway).
		if err := g.cfg.Store.UseState(g.cfg.Session, grant.Nonce, grant.Expires); err != nil {
			return g.refuse(c, AnswerInvalid, err.Error(), true)
		}
	}
	var answer []byte
	if responses != nil {
		rf, err := jsonscan.Fields(responses, ApproveKey)
		if err != nil {
			return g.refuse(c, AnswerInvalid, "inputResponses is not a JSON object with unique keys", true)
		}
		answer = rf[0]
	}
	if answer == nil {
		return g.refuse(c, AnswerMissing, "", true)
	}
	a, forSession := ParseApproval(answer)
	if a != AnswerAccept {
		return g.refuse(c, a, "", true)
	}
	params, err := restoreParams(c.Params, responses, grant.Carry)
	if err != nil {
		return g.refuse(c, AnswerInvalid, err.Error(), true)
	}
	g.audit(c, Record{Role: "sink", Tainted: c.state.Tainted(), TaintedBy: taintedBy(&c.state), Asked: "input_required", Answer: g.granted(c, a, forSession), Decision: "allowed"})
	return Verdict{Action: Forward, Params: params}
}

// Answered decides a legacy call after the client answered the proxy's
// elicitation: answer is the ElicitResult, or nil with why set to the
// failure (AnswerError, AnswerTimeout, AnswerCancelled, AnswerDisconnect).
func (g *Guard) Answered(c *Call, answer []byte, why Answer) Verdict {
	a, forSession := why, false
	if answer != nil {
		a, forSession = ParseApproval(answer)
	}
	if a != AnswerAccept {
		v := g.refuse(c, a, "", true)
		return v
	}
	g.audit(c, Record{Role: "sink", Tainted: true, TaintedBy: taintedBy(&c.state), Asked: "elicitation", Answer: g.granted(c, a, forSession), Decision: "allowed"})
	return Verdict{Action: Forward}
}

// refuse answers a sink call with a refusal the client can show.
func (g *Guard) refuse(c *Call, a Answer, reason string, asked bool) Verdict {
	r := Record{Role: "sink", Tainted: c.state.Tainted(), TaintedBy: taintedBy(&c.state), Answer: string(a), Decision: "refused", Reason: reason}
	if asked && a != AnswerUnavailable {
		r.Asked = "elicitation"
		if c.Modern {
			r.Asked = "input_required"
		}
	}
	g.audit(c, r)
	text := g.refusalText(c, a, reason)
	if c.Method == "tools/call" {
		return Verdict{Action: Respond, Result: toolError(text, c.Modern)}
	}
	return Verdict{Action: Respond, Err: &RPCError{Code: CodeRefused, Message: text,
		Data: map[string]any{"mcpsum": "taint-refused", "session": g.cfg.Session.ID, "answer": string(a)}}}
}

// BeforeResult runs before the response to a forwarded call reaches the
// client. result is the response's "result" value, or nil for an error
// response or a streamed one (both taint like a result: their text may be
// the attacker's too). A source taints the session here, before a byte is
// delivered; if that fails the returned error replaces the response. A bare
// input_required round (inputRound) carries no content yet and taints
// nothing.
func (g *Guard) BeforeResult(c *Call, result []byte) *RPCError {
	if !c.checked {
		c.source, c.sink = g.Role(c.Method, c.Name)
	}
	if !c.source {
		return nil
	}
	if inputRound(result) {
		return nil
	}
	if err := g.cfg.Store.Mark(g.cfg.Session, g.cfg.Server, g.label(c)); err != nil {
		g.audit(c, Record{Role: "source", Tainted: true, Decision: "refused", Reason: "could not record the taint: " + err.Error()})
		return &RPCError{Code: CodeRefused, Message: "mcpsum withheld this result: " + c.Method + " " + termtext.Quoted(c.Name, 200) +
			" is a taint source and mcpsum could not record that this session read it (" + err.Error() + "); fix the state directory and retry",
			Data: map[string]any{"mcpsum": "taint-unrecorded"}}
	}
	g.audit(c, Record{Role: "source", Tainted: true, Decision: "tainted"})
	return nil
}

// inputRound reports whether a result is a bare input_required round: its
// resultType exactly "input_required" and no member but those of the
// schema's InputRequiredResult. A result that also carries content (or a
// "ResultType" twin, which clients decoding case-insensitively read instead)
// is not exempt from tainting: a hostile source could otherwise hand the
// client its text under that label.
func inputRound(result []byte) bool {
	if result == nil {
		return false
	}
	ok := true
	i := jsonscan.SkipWS(result, 0)
	end, err := jsonscan.Members(result, i, func(k string, _, vs, ve int) error {
		switch k {
		case "resultType":
			ok = ok && string(result[vs:ve]) == `"input_required"`
		case "inputRequests", "requestState", "_meta":
		default:
			ok = false
		}
		return nil
	})
	if err != nil || jsonscan.SkipWS(result, end) != len(result) {
		return false
	}
	f, err := jsonscan.Fields(result, "resultType") // exactly once
	return ok && err == nil && string(f[0]) == `"input_required"`
}

func (g *Guard) label(c *Call) string {
	switch c.Method {
	case "resources/read":
		return lockfile.AllResources
	case "prompts/get":
		return lockfile.AllPrompts
	case UnknownTaskResult:
		return "(a task's result; the call that created it is not known)"
	}
	return c.Name
}

func taintedBy(s *State) string {
	if l := s.Latest(); l != nil {
		if l.Server == "" {
			return l.Label
		}
		return l.Server + "/" + l.Label
	}
	if s.Problem != "" {
		return "unreadable state"
	}
	return ""
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
