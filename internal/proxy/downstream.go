package proxy

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Downstream is the client as the core sees it: the seam on the client
// side, as internal/upstream's Upstream is on the server side. The core
// reads the client's messages one per line and writes its own for the
// client one per line, whatever carries them: stdio (Run) is one
// downstream; one HTTP client session of internal/serve is another. Every
// guarantee of the proxy is the core's, so it holds for both.
type Downstream interface {
	// Messages is the client's messages, one per line, read by one
	// goroutine; its end (EOF) is the client's end of input: the core
	// answers what it accepted, then stops.
	Messages() io.Reader
	// Out takes the core's messages for the client: each ends with "\n",
	// which no message holds inside; a long one may come in several writes,
	// never interleaved with another. An Out that routes messages (each
	// answer to the request that asked) implements jsonline's Router:
	// Streaming(id), called before a streamed answer, whose id comes last;
	// one that can tell that its client went away implements Gone() bool.
	Out() io.Writer
}

// Direct is what a Downstream implements whose client lines arrive on
// goroutines of their own (an HTTP handler per request): instead of
// writing each line into Messages for the core's reader to wake up to,
// the caller hands it to the core on its own goroutine, one fewer
// hand-off per message. The core calls Direct once, before it reads
// anything, with take: take handles one whole line of the client (no line
// break inside; the line becomes the core's, as a line read from Messages
// would), in turn with every other line, exactly as the reader of
// Messages would; it fails with ErrInputEnded once the client's input
// ended (Messages reached EOF) or the core stopped, and with a
// *mcpwire.LineTooLongError, handling nothing, for a line over the limit
// (write that one into Messages: the core ends the session as it does
// for any line too long). Messages still carries the client's end (EOF).
type Direct interface {
	Direct(take func(line []byte) error)
}

// ErrInputEnded is what a Direct downstream's take returns once the
// client's input ended or the core stopped.
var ErrInputEnded = errors.New("the client's input ended")

// clientIn serialises the client's lines: the reader of Messages and a
// Direct downstream's callers take turns, one line at a time.
type clientIn struct {
	mu    sync.Mutex
	ended bool
}

// take is a Direct downstream's way in (see Direct).
func (p *Proxy) take(line []byte) error {
	if max := p.lineMax(); len(line) > max {
		return &mcpwire.LineTooLongError{Max: max}
	}
	p.in.mu.Lock()
	defer p.in.mu.Unlock()
	if p.in.ended {
		return ErrInputEnded
	}
	p.fromClient(line)
	return nil
}

// endInput refuses every later line of a Direct downstream.
func (p *Proxy) endInput() {
	p.in.mu.Lock()
	p.in.ended = true
	p.in.mu.Unlock()
}

func (p *Proxy) lineMax() int {
	if p.opts.Pin.MaxLine > 0 {
		return p.opts.Pin.MaxLine
	}
	return mcpspec.MaxMessage
}

// Router is what an Out that routes messages implements (see Downstream).
type Router = jsonline.Router

// stdio is the downstream of `mcpsum proxy`: the client on stdin and stdout.
type stdio struct {
	in  io.Reader
	out io.Writer
}

func (s stdio) Messages() io.Reader { return s.in }
func (s stdio) Out() io.Writer      { return s.out }

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
// a policy hook acts on (the first eight by position: paramMeta …);
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

// clientRequest reads a client request (its params and _meta under the
// exact-key rule, its era's version) and dispatches it by the table of
// methods (methods.go).
func (p *Proxy) clientRequest(line []byte, env jsonline.Envelope, id []byte) {
	method, _ := jsonline.StringAt(line, env.Method)
	pf, isObj, err := jsonline.Fields(line, env.Params, paramsKeys...)
	if err != nil || !isObj {
		p.replyErr(id, paramsError(method, "params", err))
		return
	}
	mf, metaObj, err := jsonline.Fields(line, pf[paramMeta], metaKeys...)
	if err != nil || !metaObj {
		p.replyErr(id, paramsError(method, "params._meta", err))
		return
	}
	if pf[paramArguments].OK() {
		if err := jsonscan.FoldUnique(pf[paramArguments].Of(line)); err != nil {
			p.replyErr(id, paramsError(method, "params.arguments", err))
			return
		}
	}
	r := &request{line: line, env: env, id: id, method: method, meta: pf[paramMeta], modern: mf[0].OK(), logLevel: mf[2].OK()}
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
	var failed *jsonline.Error
	if p.gate.state == gateFailed {
		failed = p.failureRPC()
	}
	p.mu.Unlock()
	if q != nil {
		p.replyErr(id, q.rpc())
		return
	}
	m, known := clientMethods[method]
	if !r.modern && !legacy && !m.early && failed != nil {
		// The client's initialize got the failure: say it again rather
		// than ask for an initialize it sent.
		p.replyErr(id, failed)
		return
	}
	if !r.modern && !legacy && !m.early {
		p.replyErr(id, &jsonline.Error{Code: mcpspec.CodeInvalidRequest, Message: fmt.Sprintf("mcpsum: \"%s\" before initialize: send initialize first (or 2026-07-28 _meta on every request)", termtext.TruncateQuote(method, 80))})
		return
	}
	p.noteClientInfo(line, r, env.Params)
	if !known {
		e := methodNotFound(method)
		e.Message = fmt.Sprintf("method not found: mcpsum proxy does not forward \"%s\"", termtext.TruncateQuote(method, 80))
		p.replyErr(id, e)
		return
	}
	m.run(p, clientCall{request: r, params: pf})
}
