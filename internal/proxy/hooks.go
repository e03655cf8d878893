package proxy

import (
	"encoding/json"
	"errors"

	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
)

// Hooks let a policy (cmd/mcpsum plugs one in; internal/proxy knows none) see and
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
	// none of the server's bytes. A task's result (a legacy tasks/result, a
	// 2026-07-28 tasks/get, or the proxy's translation of either) passes it
	// with the CallInfo of the tools/call that created the task; the proxy
	// may call it from another goroutine for a task translated across eras.
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
	// Params, when set (and neither Refuse nor Answer), replaces the call's
	// params object when it is forwarded: a hook removes members that were
	// meant for it (its own approval answer), so the server never sees them.
	Params json.RawMessage
}

// CallError is a JSON-RPC error a hook sends the client.
type CallError struct {
	Code    int
	Message string
	Data    any // marshalled as the error's data; nil: none
}

func (e *CallError) rpc() *jsonline.Error {
	return &jsonline.Error{Code: e.Code, Message: e.Message, Data: e.Data}
}

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
	// CancelAsks withdraws this call's open AskClient requests: the client
	// gets notifications/cancelled for each, and their done functions are
	// not called. A hook that gave up waiting (a timeout) calls it.
	CancelAsks(reason string)
	// ClientHello is what a legacy client sent in initialize: the
	// negotiated protocol version and its capabilities object ("" and nil
	// for a 2026-07-28 client, whose capabilities are in each request's
	// _meta).
	ClientHello() (protocolVersion string, capabilities json.RawMessage)
}

// Codes of the *CallError an AskClient's done receives when the question is
// moot before the client answered it.
const (
	// CodeCallCancelled: the client cancelled the call the question was
	// about (the question was withdrawn at the client too).
	CodeCallCancelled = -31800
	// CodeSessionEnded: the client went away, or the proxy is stopping.
	CodeSessionEnded = -31801
)

// ErrNoClientRequests is AskClient's error when the client takes no requests.
var ErrNoClientRequests = errors.New("the client does not take requests from the server side (not a legacy client session)")

// noHooks forwards everything.
type noHooks struct{}

func (noHooks) BeforeCall(_ CallInfo, _ []byte, _ Session, decide func(Verdict)) { decide(Verdict{}) }
func (noHooks) BeforeResult(CallInfo, ResultInfo) *CallError                     { return nil }
