// Package oauth signs mcpsum in to a remote MCP server that answers 401
// with a Bearer challenge (the MCP authorization spec): discovery (RFC 9728
// protected-resource metadata where the challenge says, then at the
// path-suffixed and root well-known URLs; a 2025-03-26 server as its own
// authorization server; RFC 8414 / OpenID authorization server metadata),
// the scopes the challenge names, the client (one registered beforehand, a
// Client ID Metadata Document, or dynamic registration, RFC 7591, with the
// token endpoint authentication the server supports), the authorization
// code grant with PKCE (S256) and the RFC 8707 resource indicator through a
// loopback listener that answers only its own redirect (state, RFC 9207
// iss, once, within a time limit), refresh, and the tokens kept in mcpsum's
// private state folder, bound to their issuer and resource (Token.For: sent
// only to URLs the resource covers, netrule.ResourceCovers).
//
// Every URL a server or an authorization server sends is hostile: it must
// pass the remote-URL rule (internal/netrule: https, or http to this machine
// only, no credentials), and it is only ever fetched, printed or handed to
// Options.Open as one string; nothing here runs a shell. Documents are read
// with exact keys (internal/jsonscan), capped in size. Nothing prints.
//
// It is a leaf: it imports only internal/ helpers of mcpsum
// (internal/jsonscan, internal/netrule, internal/safeio, internal/statefile,
// internal/termtext), and must not import any other pkg/ package or cmd/.
package oauth
