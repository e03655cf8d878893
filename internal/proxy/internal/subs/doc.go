// Package subs holds the resource subscriptions of both sides of a proxy
// session, under a lock of its own: a 2026-07-28 client's open
// subscriptions/listen streams with their resource URIs and whether they
// asked for resourcesListChanged, a legacy client's resources/subscribe,
// and the URIs the server is subscribed to. It holds no lock while it calls
// out (it calls nothing); the proxy builds and writes the messages.
//
// It imports nothing of mcpsum; it must not import internal/proxy or any of its
// other parts.
package subs
