// Package proxytest is a real MCP server built on the official go-sdk
// (github.com/modelcontextprotocol/go-sdk), with the behaviours the proxy's
// tests need: drift on demand, big results, slow and crashing calls,
// progress floods, list_changed at run time, and input requests (2026-07-28
// MRTR, turned into server->client requests by the SDK for legacy clients).
// Every reply comes from the SDK; only -never-answer is a fake (a server that
// reads and never answers) and -fake-modern-tasks (FakeModernTasks), named
// as such.
//
// It is used by internal/proxy's tests (re-executing the test binary) and by
// e2e/servers/proxysrv.
//
// It imports nothing of mcpsum; only tests import it.
package proxytest
