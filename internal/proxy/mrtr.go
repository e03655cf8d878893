package proxy

import (
	"fmt"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/idmap"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/mrtrstate"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// MRTR bridging: a 2026-07-28 server asks for client input with an
// input_required result; a legacy server sends server->client requests
// (elicitation/create, sampling/createMessage, roots/list) while a call is
// running. The proxy translates between the two so both client eras work in
// front of both server eras.
//
// Legacy client, modern server: an input_required result becomes one
// request to the client per inputRequests entry; once all are answered the
// proxy retries the call upstream under a new id with inputResponses and the
// requestState, and the final result goes to the client's original id.
//
// Modern client, legacy server: the server's request becomes an
// input_required answer to the client's running call (whose _meta declared
// the capability), with a requestState token of the proxy's own; the
// client's retry (new id, inputResponses, that token) is not forwarded: its
// answer goes to the server's request, and the running call now answers the
// retry's id.

const maxRounds = 10

// maxQueuedInputs bounds a legacy server's requests waiting for a modern
// client's retry of one call.
const maxQueuedInputs = 16

// bridgeResult handles a response to a call kept for bridging; it reports
// whether the response was consumed.
func (p *Proxy) bridgeResult(c *call, line []byte, env jsonline.Envelope) bool {
	if c.req.modern {
		return false
	}
	rf, ok, _ := jsonline.Fields(line, env.Result, "resultType", "inputRequests", "requestState")
	if rt, _ := jsonline.StringAt(line, rf[0]); !ok || rt != "input_required" {
		return false
	}
	if c.rounds >= maxRounds {
		p.replyErr(c.ClientID, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: fmt.Sprintf("mcpsum: the server asked for input more than %d times for one call", maxRounds)})
		return true
	}
	var state []byte
	if rf[2].OK() {
		state = append([]byte(nil), rf[2].Of(line)...)
	}
	b := mrtrstate.NewBridge(c, c.ClientID, state)
	var asks []mrtrstate.Ask
	p.mu.Lock()
	if rf[1].OK() {
		// Every entry is checked before any is sent (checkInputRequests).
		if msg := checkInputRequests(p.client.caps, line, rf[1]); msg != "" {
			p.mu.Unlock()
			p.replyErr(c.ClientID, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: msg})
			return true
		}
		var refusal string
		jsonscan.Members(line[:rf[1].End], rf[1].Start, func(key string, _, vs, ve int) error {
			f, _, _ := jsonline.Fields(line, jsonline.Span{Start: vs, End: ve}, "method", "params")
			method, _ := jsonline.StringAt(line, f[0])
			params := f[1].Of(line)
			if method == "elicitation/create" {
				if params, refusal = p.markElicit(params); refusal != "" {
					return errStop
				}
			}
			asks = append(asks, mrtrstate.Ask{Key: key, Method: method, Params: params})
			return nil
		})
		if refusal != "" {
			p.mu.Unlock()
			p.replyErr(c.ClientID, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: "mcpsum: " + refusal})
			return true
		}
	}
	if n := len(asks); n > 0 && p.ids.AsksOpen()+n > maxDownPending {
		p.mu.Unlock()
		p.replyErr(c.ClientID, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: fmt.Sprintf("mcpsum: the server asked for input through %d requests at once; the client may have at most %d from the server unanswered, so the proxy did not forward them and the call fails", n, maxDownPending)})
		return true
	}
	ds := p.mrtr.Collect(b, asks, func(a mrtrstate.Ask) *downReq { return &downReq{bridge: b, key: a.Key, method: a.Method} })
	p.mu.Unlock()
	if len(ds) == 0 {
		p.bridgeRetry(b)
		return true
	}
	for i, d := range ds {
		p.out.WriteLine(jsonline.RequestLine(itoa(d), asks[i].Method, asks[i].Params))
	}
	return true
}

// bridgeAnswer records the client's answer to one bridged input request.
func (p *Proxy) bridgeAnswer(d int64, r *downReq, line []byte, env jsonline.Envelope) {
	b := r.bridge
	if env.Err.OK() {
		if !p.mrtr.Refuse(b, d) {
			return
		}
		p.replyErr(b.Call.ClientID, &jsonline.Error{Code: mcpspec.CodeInternalError,
			Message: fmt.Sprintf("mcpsum: the server asked for input (%s) and the client answered with an error: %s", r.method, termtext.TruncateQuote(string(env.Err.Of(line)), 300))})
		return
	}
	left, ok := p.mrtr.Answer(b, d, r.key, env.Result.Of(line))
	if ok && left == 0 {
		p.bridgeRetry(b)
	}
}

// retryParams are the members a bridged call is retried with:
// inputResponses, and requestState when the server gave one.
func retryParams(state []byte, responses map[string][]byte) []byte {
	extra := []byte(`"inputResponses":{`)
	i := 0
	for k, v := range responses {
		if i > 0 {
			extra = append(extra, ',')
		}
		extra = jsonline.AppendJSON(extra, k)
		extra = append(append(extra, ':'), v...)
		i++
	}
	extra = append(extra, '}')
	if state != nil {
		extra = append(append(extra, `,"requestState":`...), state...)
	}
	return extra
}

// bridgeRetry sends the call again with the collected inputResponses.
func (p *Proxy) bridgeRetry(b *bridge) {
	extra := retryParams(b.State, p.mrtr.End(b))
	p.mu.Lock()
	if p.gate.state != gateOpen && p.gate.state != gateChecking {
		e := p.failureRPC()
		if p.gate.quarantine != nil {
			e = p.gate.quarantine.rpc()
		}
		p.mu.Unlock()
		p.replyErr(b.Call.ClientID, e)
		return
	}
	c := &call{Call: idmap.Call{ClientID: b.Call.ClientID}, method: b.Call.method, req: b.Call.req, rounds: b.Call.rounds + 1, modern: b.Call.modern, info: b.Call.info, task: b.Call.task}
	u, ok := p.ids.Forward(c)
	up := p.up
	p.mu.Unlock()
	if !ok {
		p.replyErr(c.ClientID, overCap())
		return
	}
	up.WriteLine(p.upstreamParts(c.req, u, extra)...)
}

// cancelBridge cleans up the bridging state of a call the client cancelled.
func (p *Proxy) cancelBridge(c *call) {
	p.mu.Lock()
	sr := c.upReq
	c.upReq, c.queue = nil, nil
	up := p.up
	p.mu.Unlock()
	if sr != nil && up != nil {
		up.WriteLine(jsonline.ErrorLine(sr.upID, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: "mcpsum: the client cancelled the call this request belongs to"}))
	}
}

// cancelCollecting drops a legacy client's call whose input is being
// collected, telling the client its outstanding requests are void.
func (p *Proxy) cancelCollecting(key string) bool {
	ds, ok := p.mrtr.Cancel(key)
	if !ok {
		return false
	}
	for _, d := range ds {
		p.out.WriteLine(jsonline.RequestLine(nil, "notifications/cancelled", append(append([]byte(`{"requestId":`), itoa(d)...), '}')))
	}
	return true
}

// bridgeServerRequest turns a legacy server's request into an input_required
// answer to a modern client's running call; false when no call can carry it.
func (p *Proxy) bridgeServerRequest(line []byte, env jsonline.Envelope, id []byte, method string) bool {
	capKey := capOf[method]
	if capKey == "" {
		return false
	}
	params := append([]byte(nil), env.Params.Of(line)...)
	if params == nil {
		params = []byte(`{}`)
	}
	p.mu.Lock()
	best, c := p.ids.LastCall(func(k *call) bool { return k.req != nil && k.req.modern && hasClientCap(k.req, capKey) })
	if c == nil || len(c.queue) >= maxQueuedInputs {
		p.mu.Unlock()
		return false // answered with an error by the caller
	}
	sr := &serverRequest{upID: append([]byte(nil), id...), params: params, method: method, key: p.mrtr.RequestKey()}
	if c.upReq != nil {
		c.queue = append(c.queue, sr)
		p.mu.Unlock()
		return true
	}
	res := p.askClient(best, c, sr)
	p.mu.Unlock()
	p.reply(c.ClientID, res)
	return true
}

// askClient makes sr the call's outstanding input request and returns the
// input_required result for the client (p.mu held).
func (p *Proxy) askClient(u int64, c *call, sr *serverRequest) []byte {
	c.upReq = sr
	token := p.newToken()
	p.mrtr.Keep(token, u)
	p.ids.Unbind(string(c.ClientID)) // answered now; the client retries under a new id
	b := []byte(`{"resultType":"input_required","inputRequests":{`)
	b = jsonline.AppendJSON(b, sr.key)
	b = append(b, `:{"method":`...)
	b = jsonline.AppendJSON(b, sr.method)
	b = append(b, `,"params":`...)
	b = append(b, sr.params...)
	b = append(b, `}},"requestState":`...)
	b = jsonline.AppendJSON(b, token)
	return append(b, '}')
}

// bridgeRetryFromClient handles a modern client's retry carrying one of the
// proxy's requestState tokens; false when the token is not the proxy's.
func (p *Proxy) bridgeRetryFromClient(r *request, stateSp, respSp jsonline.Span) bool {
	token, ok := jsonline.StringAt(r.line, stateSp)
	if !ok {
		return false
	}
	p.mu.Lock()
	u, mine := p.mrtr.Redeem(token)
	if !mine {
		p.mu.Unlock()
		return false
	}
	c := p.ids.Pending(u)
	if c == nil || c.upReq == nil {
		p.mu.Unlock()
		p.replyErr(r.id, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: "mcpsum: the call this input belongs to is no longer running"})
		return true
	}
	sr := c.upReq
	c.upReq = nil
	c.ClientID, c.req = r.id, r
	p.ids.Rebind(string(r.id), u, r.logLevel && !c.LogLevel)
	c.LogLevel = c.LogLevel || r.logLevel
	var next []byte
	if len(c.queue) > 0 {
		nx := c.queue[0]
		c.queue = c.queue[1:]
		next = p.askClient(u, c, nx)
	}
	parked := c.parked
	if parked != nil && next == nil {
		p.ids.Drop(u, c)
	}
	up := p.up
	p.mu.Unlock()

	rf, _, _ := jsonline.Fields(r.line, respSp, sr.key)
	if resp := rf[0].Of(r.line); resp != nil {
		up.WriteLine(jsonline.ResultLine(sr.upID, resp))
	} else {
		up.WriteLine(jsonline.ErrorLine(sr.upID, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: "mcpsum: the client gave no answer to " + sr.method}))
	}
	switch {
	case next != nil:
		p.reply(r.id, next)
	case parked != nil:
		env, _, _ := jsonline.ScanEnvelope(parked)
		p.resultToClient(c, parked, env)
	}
	return true
}
