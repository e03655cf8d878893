package mcpwire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// ClientName and ClientVersion are sent as mcpsum's clientInfo. cmd/mcpsum sets
// ClientVersion to a func that reads its own version on first use (reading
// the build info at every start delayed the proxy's server).
var (
	ClientName    = "mcpsum"
	ClientVersion = func() string { return "dev" }
)

// Hello is what a server said about itself at the start of a session.
type Hello struct {
	Era             string // mcpspec.EraLegacy or mcpspec.EraModern
	ProtocolVersion string
	// SupportedVersions is server/discover's list as sent (modern only; nil for legacy).
	SupportedVersions []string
	ServerInfo        json.RawMessage // raw Implementation object as sent
	Capabilities      json.RawMessage // raw ServerCapabilities object as sent
	Instructions      *string         // nil when absent
	// Note says how the era was decided, for verbose output (e.g. why mcpsum fell back).
	Note string

	declareNone bool // the session declares no capabilities (ClientOptions.DeclareNone)
}

// Meta returns the per-request _meta of a modern session (nil for legacy):
// protocolVersion, mcpsum's client capabilities and its clientInfo.
func Meta(h *Hello) json.RawMessage {
	if h == nil || h.Era != mcpspec.EraModern {
		return nil
	}
	if h.declareNone {
		return metaFor(h.ProtocolVersion, json.RawMessage(`{}`))
	}
	return metaFor(h.ProtocolVersion, ClientCapabilities(mcpspec.EraModern))
}

func metaFor(version string, caps json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		mcpspec.MetaProtocolVersion:    version,
		mcpspec.MetaClientCapabilities: caps,
		mcpspec.MetaClientInfo:         clientInfo(),
	})
	return b
}

func clientInfo() map[string]string {
	return map[string]string{"name": ClientName, "version": ClientVersion()}
}

// EraError reports a server whose answer rules out locking it (no fallback):
// a recognised 2026-07-28 error, or a bad DiscoverResult or InitializeResult.
type EraError struct {
	Msg string
	// LacksModern is set when a DiscoverResult did not list 2026-07-28;
	// Supported then holds the versions it did list, as sent.
	LacksModern bool
	Supported   []string
	// ModernOnly is set when a server locked legacy refused initialize with
	// -32022 (it speaks only 2026-07-28 now).
	ModernOnly bool
}

func (e *EraError) Error() string { return e.Msg }

// Probe starts a server and finds its era exactly as LOCKFILE.md's "Protocol
// era" says:
//
//  1. server/discover first, with 2026-07-28, no client capabilities ({}) and
//     mcpsum's clientInfo in _meta. A DiscoverResult listing 2026-07-28 makes
//     the session modern.
//  2. -32021, -32022, or a DiscoverResult without 2026-07-28, without serverInfo
//     in _meta or with a resultType other than "complete", fails (*EraError).
//     One exception, deliberately: a -32022 whose data.supported lists only
//     legacy versions (< 2026-07-28) is the server saying it speaks only the
//     legacy era — go-sdk's legacy-only servers answer exactly so — and falls
//     back like rule 3, as the wire notes (§5.1) and go-sdk's client do.
//     Failing there would make every legacy-only go-sdk server unlockable.
//  3. Any other error, or no answer within timeout, means legacy: initialize
//     (protocolVersion 2025-11-25, mcpsum's client capabilities) then
//     notifications/initialized. If the child exited after the probe, start
//     is called again and initialize goes to the new child first. A child that
//     did not answer in time is not killed: initialize goes to it, and a late
//     DiscoverResult that arrives meanwhile fails the probe (the server was
//     modern but slow; raise the timeout).
//
// timeout bounds each request and becomes the client's per-call timeout
// (<= 0: DefaultTimeout). On error every process started is stopped. The
// caller closes the client.
func Probe(ctx context.Context, start func() (Transport, error), timeout time.Duration) (*Client, *Hello, error) {
	return ProbeWithOptions(ctx, start, &ClientOptions{Timeout: timeout})
}

// DefaultTimeout is the per-request timeout when none is given. Real clients
// use about 10 s; a server that is still starting must not be taken for legacy.
const DefaultTimeout = 10 * time.Second

// ProbeWithOptions is Probe with full client options (Trace, Handle) for
// every client it creates; opts.Timeout is the probe timeout.
func ProbeWithOptions(ctx context.Context, start func() (Transport, error), opts *ClientOptions) (*Client, *Hello, error) {
	o := ClientOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	c, err := startClient(start, &o)
	if err != nil {
		return nil, nil, err
	}
	discoverID, res, err := c.call(ctx, "server/discover", discoverParams())
	var h *Hello
	switch {
	case err == nil:
		h, err = ParseDiscover(res)
		if err == nil {
			return c, h, nil
		}
		if note, ok := statefulHTTP(c, err, res); ok {
			c, h, err = fallback(ctx, c, start, &o, note, discoverID)
			if err == nil {
				return c, h, nil
			}
		}
	case ctx.Err() != nil:
		err = fmt.Errorf("probe era: %w", ctx.Err())
	default:
		var note string
		note, err = legacySignal(err)
		if err == nil {
			c, h, err = fallback(ctx, c, start, &o, note, discoverID)
			if err == nil {
				return c, h, nil
			}
		}
	}
	if c != nil {
		c.Close(stopGrace)
	}
	return nil, nil, err
}

// stopGrace is how long a failed probe waits for a server to exit on stdin EOF.
const stopGrace = 2 * time.Second

func startClient(start func() (Transport, error), opts *ClientOptions) (*Client, error) {
	p, err := start()
	if err != nil {
		return nil, err
	}
	return NewClient(p, opts), nil
}

// legacySignal classifies a failed server/discover: nil error plus a note for
// "fall back to initialize", or the error that fails the probe.
func legacySignal(err error) (string, error) {
	var rpc *Error
	var exit *process.ExitError
	var to *TimeoutError
	var hs *mcphttp.HTTPStatusError
	switch {
	case errors.As(err, &rpc) && rpc.Code == mcpspec.CodeMissingClientCapability:
		return "", &EraError{Msg: fmt.Sprintf("server/discover: the server answered -32021 (a 2026-07-28 server requiring client capabilities %s); mcpsum's server/discover declares none, as the lockfile format specifies, so it cannot lock it: %v",
			termtext.TruncateQuote(string(rpc.Data), 200), rpc)}
	case errors.As(err, &rpc) && rpc.Code == mcpspec.CodeUnsupportedVersion:
		supported, ok := legacyOnly(rpc.Data)
		if ok {
			return fmt.Sprintf("server/discover answered -32022 listing only legacy versions %s; using initialize", supported), nil
		}
		return "", &EraError{Msg: fmt.Sprintf("server/discover: the server answered -32022 (unsupported protocol version) with supported versions %s; mcpsum speaks %s and the legacy versions %s: %v",
			supported, mcpspec.Modern, strings.Join(mcpspec.LegacyVersions, ", "), rpc)}
	case errors.As(err, &rpc):
		return fmt.Sprintf("server/discover answered %d %s; using initialize", rpc.Code, termtext.Quoted(rpc.Message, 100)), nil
	case errors.As(err, &hs) && (hs.Status == 400 || hs.Status == 404 || hs.Status == 405):
		// Streamable HTTP: a legacy server refuses a POST it cannot place in
		// a session with a client error and no JSON-RPC body.
		return fmt.Sprintf("server/discover answered HTTP %d; using initialize", hs.Status), nil
	case errors.As(err, &to):
		return fmt.Sprintf("server/discover got no answer within %s; using initialize", to.After), nil
	case errors.As(err, &exit):
		return fmt.Sprintf("the server exited on server/discover (%s); restarted it for initialize", exit.State), nil
	}
	return "", fmt.Errorf("probe era: %w", err)
}

// statefulHTTP reports a DiscoverResult over Streamable HTTP that lists
// only legacy versions: a stateful HTTP server answers server/discover
// outside a session so (go-sdk's stateful handler: it cannot serve
// 2026-07-28 there), meaning "initialize first", like -32022 listing only
// legacy versions. So is a result that is no DiscoverResult at all (no
// supportedVersions, no resultType: the conformance suite's legacy servers
// answer every method they do not know with an empty result). On stdio
// such a result still fails the probe (the seed's rule 2).
func statefulHTTP(c *Client, err error, res json.RawMessage) (string, bool) {
	var ee *EraError
	if _, isHTTP := c.t.(*HTTP); !isHTTP || !errors.As(err, &ee) || !ee.LacksModern {
		return "", false
	}
	if len(ee.Supported) == 0 {
		if f, ferr := jsonscan.Fields(res, "supportedVersions", "resultType"); ferr != nil || f[0] != nil || f[1] != nil {
			return "", false
		}
		return "server/discover over HTTP answered a result that is no DiscoverResult (no supportedVersions, no resultType); using initialize", true
	}
	for _, v := range ee.Supported {
		if !mcpspec.IsVersion(v) || v >= mcpspec.Modern {
			return "", false
		}
	}
	return fmt.Sprintf("server/discover over HTTP listed only legacy versions %s; using initialize", termtext.List(ee.Supported, 20, 60)), true
}

// legacyOnly reports whether -32022's data.supported is a non-empty list of
// versions all older than 2026-07-28; it also renders the list.
func legacyOnly(data json.RawMessage) (string, bool) {
	supported, ok := supportedOf(data)
	if !ok || len(supported) == 0 {
		return "(none)", false
	}
	s := termtext.List(supported, 20, 60)
	for _, v := range supported {
		if !mcpspec.IsVersion(v) || v >= mcpspec.Modern {
			return s, false
		}
	}
	return s, true
}

// supportedOf reads data.supported of a -32022 error (exact keys).
func supportedOf(data json.RawMessage) ([]string, bool) {
	f, err := jsonscan.Fields(data, "supported")
	if err != nil || f[0] == nil {
		return nil, false
	}
	return jsonscan.Strings(f[0])
}

func fallback(ctx context.Context, c *Client, start func() (Transport, error), opts *ClientOptions, note string, discoverID int64) (*Client, *Hello, error) {
	select {
	case <-c.Done(): // it exited (or broke the stream): start afresh
		var exit *process.ExitError
		if err := c.Err(); !errors.As(err, &exit) {
			return c, nil, fmt.Errorf("probe era: %w", err)
		}
		c.Close(stopGrace)
		var err error
		if c, err = startClient(start, opts); err != nil {
			return nil, nil, err
		}
	default:
	}
	h, err := initialize(ctx, c)
	if m := c.lateReply(discoverID); m != nil && m.Result != nil {
		if _, derr := ParseDiscover(m.Result); derr == nil {
			return c, nil, &EraError{Msg: fmt.Sprintf("server/discover: the server answered after the %s timeout with a 2026-07-28 DiscoverResult; it is a slow 2026-07-28 server: lock it again with a longer timeout", opts.Timeout)}
		}
	}
	if err != nil {
		return c, nil, err
	}
	h.Note = note
	return c, h, nil
}
