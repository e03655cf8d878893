// Package oauthtest is a small OAuth 2.1 authorization server and MCP
// resource front written for mcpsum's tests (not a fake of any product): RFC
// 8414 metadata at a path issuer, RFC 7591 registration, the authorization
// code grant checking PKCE S256 and the RFC 8707 resource, refresh, and a
// protected resource (/mcp) that answers 401 with RFC 9728 metadata and
// forwards authorized requests to a real MCP server. Knobs make it
// misbehave or move to another issuer.
//
// It imports nothing of mcpsum; only tests import it.
package oauthtest
