package mcpwire

// The handshake of each era: the params mcpsum sends, and the one reading of
// a server's InitializeResult / DiscoverResult that lock, verify and the
// proxy share.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Handshake speaks a known era directly (verify, re-lock, proxy): for
// EraModern server/discover with the same checks as Probe (no fallback); for
// EraLegacy initialize then notifications/initialized. Each request is bounded
// by the client's timeout.
func Handshake(ctx context.Context, c *Client, era string) (*Hello, error) {
	switch era {
	case mcpspec.EraLegacy:
		return initialize(ctx, c)
	case mcpspec.EraModern:
		res, err := c.Call(ctx, "server/discover", discoverParams())
		h, err := ModernAnswer(res, err)
		if h != nil && c.opts.DeclareNone {
			h.declareNone = true
		}
		return h, err
	}
	return nil, fmt.Errorf("handshake: unknown era %q (want %q or %q)", era, mcpspec.EraLegacy, mcpspec.EraModern)
}

// ModernAnswer classifies the answer to server/discover of a server locked
// in 2026-07-28 (Handshake and the proxy share it, so verify, a re-lock and
// the proxy read one answer one way). Every recognised "I no longer speak
// 2026-07-28" answer — -32022 whatever it lists, or a DiscoverResult that
// does not list 2026-07-28 — is an *EraError with LacksModern set: the
// seed's "no longer lists the locked protocolVersion". A malformed
// DiscoverResult is an *EraError; any other error (a JSON-RPC error of
// another code, a timeout, an exit) is returned as is: it does not show
// which era the server speaks.
func ModernAnswer(res json.RawMessage, err error) (*Hello, error) {
	if err != nil {
		var rpc *Error
		if errors.As(err, &rpc) && rpc.Code == mcpspec.CodeUnsupportedVersion {
			supported, _ := supportedOf(rpc.Data)
			return nil, &EraError{Msg: fmt.Sprintf("server/discover: the server no longer speaks %s (it answered -32022, supported versions %s): %v", mcpspec.Modern, termtext.List(supported, 20, 60), rpc),
				LacksModern: true, Supported: supported}
		}
		return nil, err
	}
	return ParseDiscover(res)
}

// LegacyAnswer classifies the answer to initialize of a server locked in the
// legacy era: -32022 (the server speaks only 2026-07-28 now) and a result
// mcpsum cannot speak are *EraError; any other error is returned as is.
func LegacyAnswer(res json.RawMessage, err error) (*Hello, error) {
	if err != nil {
		var rpc *Error
		if errors.As(err, &rpc) && rpc.Code == mcpspec.CodeUnsupportedVersion {
			return nil, &EraError{Msg: fmt.Sprintf("initialize: the server refused the legacy handshake with -32022 (supported versions %s); it looks like a 2026-07-28 server that was too slow to answer server/discover: lock it again with a longer timeout: %v",
				termtext.TruncateQuote(string(rpc.Data), 200), rpc), ModernOnly: true}
		}
		return nil, err
	}
	return ParseInitialize(res)
}

// discoverParams declare no client capabilities ({}), as the format's
// specification (LOCKFILE.md, "Protocol era") says of the probe; what a
// server lists depends only on the capabilities of the list requests, which
// carry mcpsum's set (Meta).
func discoverParams() json.RawMessage {
	b, _ := json.Marshal(map[string]json.RawMessage{"_meta": metaFor(mcpspec.Modern, json.RawMessage(`{}`))})
	return b
}

// ParseDiscover validates a DiscoverResult and turns it into a modern Hello
// (the checks of the seed's era rules; failures are *EraError).
func ParseDiscover(res json.RawMessage) (*Hello, error) {
	bad := func(format string, a ...any) error {
		return &EraError{Msg: "server/discover: " + fmt.Sprintf(format, a...) + "; mcpsum does not fall back to initialize after a DiscoverResult, so this server cannot be locked until it is fixed"}
	}
	f, err := jsonscan.Fields(res, "resultType", "supportedVersions", "capabilities", "instructions", "_meta")
	if err != nil {
		return nil, bad("the result is not a valid DiscoverResult (%v)", err)
	}
	var r struct {
		ResultType        *string
		SupportedVersions []string
		Capabilities      json.RawMessage
		Instructions      *string
	}
	if f[0] != nil {
		rt, ok := jsonscan.String(f[0])
		if !ok {
			return nil, bad("resultType is not a string")
		}
		r.ResultType = &rt
	}
	if f[1] != nil {
		var ok bool
		if r.SupportedVersions, ok = jsonscan.Strings(f[1]); !ok {
			return nil, bad("supportedVersions is not a list of strings")
		}
	}
	r.Capabilities = f[2]
	if r.Instructions, err = optString(f[3]); err != nil {
		return nil, bad("instructions is not a string")
	}
	var si json.RawMessage
	if f[4] != nil {
		mf, err := jsonscan.Fields(f[4], mcpspec.MetaServerInfo)
		if err != nil {
			return nil, bad("_meta is not a valid object (%v)", err)
		}
		si = mf[0]
	}
	if r.ResultType != nil && *r.ResultType != "complete" {
		return nil, bad("resultType is %s, not \"complete\"", termtext.Quoted(*r.ResultType, 100))
	}
	if !slices.Contains(r.SupportedVersions, mcpspec.Modern) {
		err := bad("supportedVersions %s does not list %s", termtext.List(r.SupportedVersions, 20, 60), mcpspec.Modern).(*EraError)
		err.LacksModern, err.Supported = true, r.SupportedVersions
		return nil, err
	}
	if !isObject(si) {
		return nil, bad("the result has no serverInfo object in _meta[%q]", mcpspec.MetaServerInfo)
	}
	if !isObject(r.Capabilities) {
		return nil, bad("capabilities is missing or not an object")
	}
	return &Hello{
		Era:               mcpspec.EraModern,
		ProtocolVersion:   mcpspec.Modern,
		SupportedVersions: r.SupportedVersions,
		ServerInfo:        si,
		Capabilities:      r.Capabilities,
		Instructions:      r.Instructions,
		Note:              "server/discover listed " + mcpspec.Modern,
	}, nil
}

// InitializeParams are the params of mcpsum's legacy initialize: the
// protocol version it asks for, its client capabilities, its clientInfo.
func InitializeParams() json.RawMessage {
	return initializeParams(ClientCapabilities(mcpspec.EraLegacy))
}

// InitializeParamsAs is InitializeParams with another clientInfo: the
// object a client sent (the proxy passes its client's through, so a server
// sees who uses it, as directly). info that is not a JSON object is ignored.
func InitializeParamsAs(info json.RawMessage) json.RawMessage {
	if _, err := jsonscan.Fields(info); err != nil {
		return InitializeParams()
	}
	return initializeParamsInfo(ClientCapabilities(mcpspec.EraLegacy), info)
}

func initializeParams(caps json.RawMessage) json.RawMessage {
	return initializeParamsInfo(caps, clientInfo())
}

func initializeParamsInfo(caps json.RawMessage, info any) json.RawMessage {
	params, _ := json.Marshal(map[string]any{
		"protocolVersion": mcpspec.LegacyVersion,
		"capabilities":    caps,
		"clientInfo":      info,
	})
	return params
}

// DiscoverParams are the params of mcpsum's server/discover: only the
// 2026-07-28 _meta (version, no client capabilities, clientInfo).
func DiscoverParams() json.RawMessage { return discoverParams() }

// initialize runs the legacy handshake on c.
func initialize(ctx context.Context, c *Client) (*Hello, error) {
	caps := ClientCapabilities(mcpspec.EraLegacy)
	if c.opts.DeclareNone {
		caps = json.RawMessage(`{}`)
	}
	res, err := c.Call(ctx, "initialize", initializeParams(caps))
	h, err := LegacyAnswer(res, err)
	if err != nil {
		return nil, err
	}
	if err := c.Notify("notifications/initialized", nil); err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	return h, nil
}

// ParseInitialize validates an InitializeResult and turns it into a legacy
// Hello; anything mcpsum cannot speak is an *EraError.
func ParseInitialize(res json.RawMessage) (*Hello, error) {
	f, err := jsonscan.Fields(res, "protocolVersion", "capabilities", "serverInfo", "instructions")
	if err != nil {
		return nil, &EraError{Msg: "initialize: the result is not a valid InitializeResult (" + err.Error() + ")"}
	}
	var r struct {
		ProtocolVersion string
		Capabilities    json.RawMessage
		ServerInfo      json.RawMessage
		Instructions    *string
	}
	r.ProtocolVersion, _ = jsonscan.String(f[0])
	r.Capabilities, r.ServerInfo = f[1], f[2]
	if r.Instructions, err = optString(f[3]); err != nil {
		return nil, &EraError{Msg: "initialize: instructions is not a string"}
	}
	if !slices.Contains(mcpspec.LegacyVersions, r.ProtocolVersion) {
		return nil, &EraError{Msg: fmt.Sprintf("initialize: the server chose protocolVersion %s, which mcpsum does not speak (it accepts %s)", termtext.Quoted(r.ProtocolVersion, 100), strings.Join(mcpspec.LegacyVersions, ", "))}
	}
	if !isObject(r.ServerInfo) {
		return nil, &EraError{Msg: "initialize: the result has no serverInfo object"}
	}
	if !isObject(r.Capabilities) {
		return nil, &EraError{Msg: "initialize: the result has no capabilities object"}
	}
	return &Hello{
		Era:             mcpspec.EraLegacy,
		ProtocolVersion: r.ProtocolVersion,
		ServerInfo:      r.ServerInfo,
		Capabilities:    r.Capabilities,
		Instructions:    r.Instructions,
		Note:            "initialize negotiated " + r.ProtocolVersion,
	}, nil
}

// optString reads an optional string member: nil when absent or null.
func optString(v []byte) (*string, error) {
	if v == nil || string(v) == "null" {
		return nil, nil
	}
	s, ok := jsonscan.String(v)
	if !ok {
		return nil, errors.New("not a string")
	}
	return &s, nil
}

func isObject(b json.RawMessage) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}
