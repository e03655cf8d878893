// Package oauth signs mcpsum in to a remote MCP server that answers 401
// with OAuth protected-resource metadata (the MCP authorization spec):
// discovery (RFC 9728 protected-resource metadata, RFC 8414 authorization
// server metadata), dynamic client registration (RFC 7591), the
// authorization code grant with PKCE (S256) and the RFC 8707 resource
// indicator, refresh, and the tokens kept in mcpsum's private state folder.
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
