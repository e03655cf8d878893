// Package proxy is `mcpsum proxy`: it sits between an MCP client (on its own
// stdin/stdout) and one locked server, serves the client the locked surface,
// checks the live surface against the lock before any call goes through,
// forwards calls byte for byte (only ids rewritten), bridges the two protocol
// eras, and quarantines a server whose definitions drifted.
//
// It owns one session: the client's side (downstream.go, clientmsg.go), the
// gate that holds calls while a surface check runs (gate.go, check.go), the
// ids it allocates on both sides (ids.go), the era bridge (bridge.go,
// mrtr.go, elicitmark.go), roots, subscriptions and tasks across eras, the
// hooks a policy plugs into (hooks.go), and the upstream seam (seam.go): the
// core talks to an upstream, today the locked command on stdio started
// through pin and supervised by upstream.go. The served surface is built
// from the lock entry alone (serve.go). docs/proxy.md ("Architecture") says
// what each part owns.
//
// Goroutines: one reads the client, one reads the server, one supervises the
// server (start, handshake, checks). Each direction writes straight to the
// other peer under the peer's writer lock, so a slow peer blocks the reader
// feeding it (backpressure). The queues are all bounded: requests that arrive
// while a check runs are held (maxHeld) and forwarded in order once it
// passes; server messages for the client during a check likewise
// (maxHeldDown, maxHeldDownBytes); whole messages written while a long
// result is being streamed wait behind it (maxQueued bytes). Memory is
// bounded by those and the messages in flight.
//
// Anything either peer sends is untrusted: it is read with the exact-key
// scanner (scan.go, internal/jsonscan), never decoded with encoding/json, and
// quoted before it reaches a log.
//
// Imports: pkg/lockfile, pkg/mcpwire, pkg/pin (starting the locked entry),
// pkg/review (labels in the quarantine error) and internal/ helpers. It must
// not import cmd/, pkg/policy (a policy reaches it through Hooks), or
// anything that prints or exits: errors go back to the caller, diagnostics to
// Options.Stderr.
package proxy
