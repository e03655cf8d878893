package proxy

import (
	"encoding/json"
	"errors"
	"sync"
)

// Hooks let a policy (cmd/mcpsum plugs one in; pkg/proxy knows none) see and
// steer the proxy's one call path. Every client call the proxy would forward
// to the server passes BeforeCall first; every response of the server to a
// forwarded call passes BeforeResult before its first byte reaches the
// client, streamed long results included. The proxy's own answers (the
// locked lists, initialize, server/discover, ping, its errors) do not pass
// the hooks: they come from the lock, not from the server.
type Hooks interface {
	// BeforeCall runs on the goroutine reading the client, for a call that
	// passed the proxy's own checks (a locked tool or prompt name, a string
	// uri). It must not block: it hands its verdict to decide, now or later
	// and from any goroutine, exactly once (later calls are ignored). Until
	// then the call waits and every other message keeps flowing. params is
	// the call's params object as the client sent it (a copy the hook may
	// keep); s reaches the client for a confirmation.
	BeforeCall(c CallInfo, params []byte, s Session, decide func(Verdict))
	// BeforeResult runs on the goroutine reading the server, before the
	// first byte of the response to call c is forwarded. A non-nil error
	// replaces the response: the client gets that error for its call and
	// none of the server's bytes.
	BeforeResult(c CallInfo, r ResultInfo) *CallError
}

// CallInfo names the call a request or a result belongs to.
type CallInfo struct {
	// Method is the JSON-RPC method: tools/call, prompts/get,
	// resources/read, completion/complete, logging/setLevel,
	// resources/subscribe, tasks/..., as the client sent it.
	Method string
	// Name is the tool or prompt name (tools/call, prompts/get) or the
	// resource URI (resources/read, resources/subscribe); "" otherwise.
	Name string
	// ClientModern is set when the client sent the call in the 2026-07-28
	// era (per-request _meta) rather than after initialize.
	ClientModern bool
}

// ResultInfo describes a server's response to a forwarded call.
type ResultInfo struct {
	// IsError is set for a JSON-RPC error response.
	IsError bool
	// Body is the result (or error) value when the whole response is in
	// memory; nil when it is streamed (Streamed), which happens for lines
	// over the proxy's read window: the hook then decides on the call alone.
	Body     []byte
	Streamed bool
}

// Verdict is BeforeCall's decision. The zero Verdict forwards the call.
type Verdict struct {
	// Refuse, when set, answers the call with this error; nothing is
	// forwarded.
	Refuse *CallError
	// Answer, when set (and Refuse is not), answers the call with this
	// result object; nothing is forwarded.
	Answer json.RawMessage
}

// CallError is a JSON-RPC error a hook sends the client.
type CallError struct {
	Code    int
	Message string
	Data    any // marshalled as the error's data; nil: none
}

func (e *CallError) rpc() *rpcError { return &rpcError{Code: e.Code, Message: e.Message, Data: e.Data} }

// Session is the client side of a proxy session, for hooks.
type Session interface {
	// AskClient sends the client a request (elicitation/create,
	// sampling/createMessage, ...) and calls done once with its result or
	// its error, from another goroutine; done also runs (with an error)
	// when the session ends first. It fails at once with
	// ErrNoClientRequests when the client cannot take requests: a
	// 2026-07-28 client (that era has no client-bound requests; answer the
	// call with an input_required result instead) or one that did not
	// initialize.
	AskClient(method string, params json.RawMessage, done func(result json.RawMessage, err *CallError)) error
}

// ErrNoClientRequests is AskClient's error when the client takes no requests.
var ErrNoClientRequests = errors.New("the client does not take requests from the server side (not a legacy client session)")

// noHooks forwards everything.
type noHooks struct{}

func (noHooks) BeforeCall(_ CallInfo, _ []byte, _ Session, decide func(Verdict)) { decide(Verdict{}) }
func (noHooks) BeforeResult(CallInfo, ResultInfo) *CallError                     { return nil }

// once makes a decide function that acts only the first time.
func once(fn func(Verdict)) func(Verdict) {
	var o sync.Once
	return func(v Verdict) { o.Do(func() { fn(v) }) }
}

// AskClient implements Session.
func (p *Proxy) AskClient(method string, params json.RawMessage, done func(json.RawMessage, *CallError)) error {
	p.mu.Lock()
	if !p.legacyClient {
		p.mu.Unlock()
		return ErrNoClientRequests
	}
	if p.state >= gateQuarantined {
		p.mu.Unlock()
		return errors.New("the session is ending")
	}
	p.nextDown++
	d := p.nextDown
	p.downPending[d] = &downReq{method: method, hook: done}
	p.mu.Unlock()
	if err := p.out.write(requestLine(itoa(d), method, params)); err != nil {
		p.mu.Lock()
		delete(p.downPending, d)
		p.mu.Unlock()
		return err
	}
	return nil
}

// hookAnswer hands the client's answer to an AskClient request to its hook.
func hookAnswer(r *downReq, line []byte, env envelope) {
	if env.errv.ok() {
		f, _, _ := fields(line, env.errv, "code", "message")
		code, _ := intAt(line, f[0])
		msg, _ := stringAt(line, f[1])
		r.hook(nil, &CallError{Code: code, Message: msg})
		return
	}
	r.hook(append(json.RawMessage(nil), env.result.of(line)...), nil)
}

// intAt decodes the integer at sp.
func intAt(b []byte, sp span) (int, bool) {
	n, ok := parseID(sp.of(b))
	return int(n), ok && n >= -1<<31 && n < 1<<31
}

// callInfo is the CallInfo of a client request.
func callInfo(r *request, name string) CallInfo {
	return CallInfo{Method: r.method, Name: name, ClientModern: r.modern}
}
