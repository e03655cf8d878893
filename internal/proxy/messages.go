package proxy

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/idmap"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/mrtrstate"
)

// request is a client request the proxy forwards to the server.
type request struct {
	line     []byte // the original bytes, owned
	env      jsonline.Envelope
	id       []byte // the client's id (points into line)
	method   string
	modern   bool          // it carried 2026-07-28 _meta
	meta     jsonline.Span // params._meta
	logLevel bool          // modern: it asked for log messages
	info     CallInfo
	task     taskMode // a tools/call creating a task across eras
	// resultInfo, when set, is what the result hooks see instead of info
	// (a task's result: the call that created the task).
	resultInfo *CallInfo
}

// call is a request sent to the server that awaits its response.
type call struct {
	idmap.Call                  // the client's id, or the channel of the proxy's own request
	method     string           //
	modern     bool             // the client sent it in the 2026-07-28 era
	req        *request         // kept when the result may need era bridging
	upReq      *serverRequest   // a legacy server's request waiting for the client's retry
	queue      []*serverRequest // more of them
	parked     []byte           // the final response, when it came before the retry
	rounds     int              // input_required rounds bridged so far
	info       CallInfo         // what the hooks see
	caps       []byte           // a 2026-07-28 call's declared client capabilities (its _meta's)
	task       taskMode         // a tools/call creating a task across eras
}

func invalidParams(format string, a ...any) *jsonline.Error {
	return &jsonline.Error{Code: mcpspec.CodeInvalidParams, Message: "mcpsum: " + fmt.Sprintf(format, a...)}
}

// overCap is the error of a call over the cap on calls in flight.
func overCap() *jsonline.Error {
	return &jsonline.Error{Code: mcpspec.CodeInternalError, Message: fmt.Sprintf("mcpsum: the client has %d calls in flight to the server, the proxy's cap (MaxCallsInFlight); this call was not forwarded: retry it once some are answered", mcpspec.MaxCallsInFlight)}
}

func itoa(n int64) []byte { return strconv.AppendInt(nil, n, 10) }

func parseID(id []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(id), 10, 64)
	return n, err == nil
}

// hasClientCap reports whether a 2026-07-28 request declared capability key.
func hasClientCap(r *request, key string) bool {
	mf, _, _ := jsonline.Fields(r.line, r.meta, mcpspec.MetaClientCapabilities)
	cf, ok, _ := jsonline.Fields(r.line, mf[0], key)
	return ok && cf[0].OK() && !bytes.Equal(cf[0].Of(r.line), []byte("null"))
}

// errStop ends a jsonscan walk early.
var errStop = errors.New("stop")

// downReq is a request the proxy sent to the client.
type downReq struct {
	upID   []byte // a legacy server's request id: the answer is forwarded
	method string
	bridge *bridge // or: part of an input_required being bridged
	key    string
	hook   func(json.RawMessage, *CallError) // or: a hook's AskClient
}

// serverRequest is a legacy server's request waiting for a modern client's retry.
type serverRequest struct {
	upID, params []byte
	method, key  string
}

var capOf = map[string]string{"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}

func newToken() string {
	var r [16]byte
	rand.Read(r[:])
	return "mcpsum-" + hex.EncodeToString(r[:])
}

// newToken is a requestState token of this session: Options.TokenPrefix
// after "mcpsum-", so that whoever routes a client's retry can tell which
// session issued it.
func (p *Proxy) newToken() string {
	t := newToken()
	return t[:len("mcpsum-")] + p.opts.TokenPrefix + t[len("mcpsum-"):]
}

// withParams is r with its params object replaced (a hook's Verdict.Params).
func (r *request) withParams(params []byte) (*request, error) {
	if !json.Valid(params) {
		return nil, errors.New("not valid JSON")
	}
	line := make([]byte, 0, len(r.line)-len(r.env.Params.Of(r.line))+len(params))
	line = append(line, r.line[:r.env.Params.Start]...)
	line = append(line, params...)
	line = append(line, r.line[r.env.Params.End:]...)
	env, id, err := jsonline.ScanEnvelope(line)
	if err != nil {
		return nil, err
	}
	pf, isObj, err := jsonline.Fields(line, env.Params, "_meta")
	if err != nil || !isObj {
		return nil, errors.New("params must be a JSON object")
	}
	nr := *r
	nr.line, nr.env, nr.id, nr.meta = line, env, id, pf[0]
	return &nr, nil
}

// intAt decodes the integer at sp.
func intAt(b []byte, sp jsonline.Span) (int, bool) {
	n, ok := parseID(sp.Of(b))
	return int(n), ok && n >= -1<<31 && n < 1<<31
}

const metaLogLevel = "io.modelcontextprotocol/logLevel"

// bridge collects a legacy client's answers to one input_required result
// (internal/mrtrstate).
type bridge = mrtrstate.Bridge[*call]

// mrtrState is the era bridge's state (internal/mrtrstate).
type mrtrState = mrtrstate.State[*call, *downReq]

type taskMode uint8

const (
	taskNone     taskMode = iota
	taskToModern          // a legacy client's task-augmented tools/call to a 2026-07-28 server
	taskToLegacy          // a 2026-07-28 client's tools/call (declaring the extension) to a legacy server
)

func emptyObject(b []byte, open int) bool {
	i := jsonscan.SkipWS(b, open+1)
	return i < len(b) && b[i] == '}'
}
