package mcpwire

import "github.com/mcpsum/mcpsum/internal/mcpspec"

// Forwarding names for pkg/proxy while it moves to internal/mcpspec; new code
// reads internal/mcpspec.
const (
	Modern                 = mcpspec.Modern
	EraLegacy              = mcpspec.EraLegacy
	EraModern              = mcpspec.EraModern
	LegacyVersion          = mcpspec.LegacyVersion
	MetaProtocolVersion    = mcpspec.MetaProtocolVersion
	MetaClientCapabilities = mcpspec.MetaClientCapabilities
	MetaClientInfo         = mcpspec.MetaClientInfo
	MetaServerInfo         = mcpspec.MetaServerInfo
	MetaSubscriptionID     = mcpspec.MetaSubscriptionID
	CodeParseError         = mcpspec.CodeParseError
	CodeInvalidRequest     = mcpspec.CodeInvalidRequest
	CodeMethodNotFound     = mcpspec.CodeMethodNotFound
	CodeInvalidParams      = mcpspec.CodeInvalidParams
	CodeInternalError      = mcpspec.CodeInternalError
	CodeUnsupportedVersion = mcpspec.CodeUnsupportedVersion
	MaxItems               = mcpspec.MaxItems
)

// LegacyVersions forwards mcpspec.LegacyVersions.
var LegacyVersions = mcpspec.LegacyVersions
