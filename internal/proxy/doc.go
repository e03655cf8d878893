// Package proxy is `mcpsum proxy`: it sits between an MCP client (on its
// own stdin/stdout) and one locked server, serves the client the locked
// surface, checks the live surface against the lock before any call goes
// through, forwards calls byte for byte (only ids rewritten), bridges the
// two protocol eras, and quarantines a server whose definitions drifted.
//
// It owns one session. The core (Proxy) owns the two peers, the gate that
// holds calls while a surface check runs (gate.go, check.go) and what the
// client said of itself (clientmsg.go). The parts each own their state
// under a lock of their own, in packages under internal/ that import
// nothing of internal/proxy (internal/layering checks) and build no message
// (the proxy does, in the files named):
//   - the id map (internal/idmap): every id allocated on either side, the
//     calls in flight, capped at mcpspec.MaxCallsInFlight;
//   - the calls waiting for a hook's verdict (internal/hookwait, handed the
//     id map; the hooks seam is hooks.go and hookcall.go);
//   - the era bridge (internal/mrtrstate, handed the id map; mrtr.go,
//     bridge.go, clientasks.go);
//   - the resource subscriptions (internal/subs; subscribe.go,
//     subscribe.go);
//   - the tasks (internal/tasktable, handed the function that refuses a
//     forgotten task's requests; tasks.go, task*.go);
//   - a legacy server's roots/list held for a 2026-07-28 client's next
//     call (internal/rootshold; roots.go).
//
// The core talks to an upstream (internal/upstream), not to a process:
// starting it, supervising it and the proxy's own calls to it are
// run.go and owncall.go, the proxy's side of a remote one (its hooks) httpcore.go.
// The served surface is built from the lock entry alone (served.go).
// docs/proxy.md ("Architecture") says what each part owns.
//
// Below the core, in sub-packages that import nothing of this one (Go
// allows no cycle, so the layering holds by construction), two floors:
// internal/upstream is the transport seam, the Upstream interface with
// its two transports (the locked command on stdio, a remote server over
// Streamable HTTP through internal/mcpwire/mcphttp), whose session asks
// the proxy what it needs through mcphttp.Hooks; internal/jsonline, under it, is the byte level, one
// JSON-RPC message per line: the envelope scanner, the line check, the
// streaming tracker, the line writer and the builders of the proxy's own
// lines. Each has a doc.go with its own locks.
//
// Lock order (the one place it is written): Proxy.mu, then a part's lock
// (hookwait.Waits, mrtrstate.State, rootshold.Hold, subs.Table,
// tasktable.Table: never two of them at once), then the id map's lock
// (idmap.Map), then a jsonline.Writer's lock. An upstream's locks are its
// own (internal/upstream, doc.go). A part never calls back into the core
// while it holds its lock (tasktable.Table calls the refuse function it is
// handed, which takes Proxy.mu, only after releasing its own), and the id
// map calls out to nothing but the predicates it is handed.
//
// Goroutines: one reads the client, one reads the server, one supervises
// the server (start, handshake, checks). Each direction writes straight to
// the other peer under the peer's writer lock, so a slow peer blocks the
// reader feeding it (backpressure). The queues are all bounded: requests
// that arrive while a check runs are held (maxHeld) and forwarded in order
// once it passes; server messages for the client during a check likewise
// (maxHeldDown, maxHeldDownBytes); whole messages written while a long
// result is being streamed wait behind it (jsonline.maxQueued bytes). Memory is
// bounded by those and the messages in flight.
//
// Anything either peer sends is untrusted: it is read with the exact-key
// scanner (internal/jsonline, internal/jsonscan), never decoded with
// encoding/json, and quoted before it reaches a log.
//
// Imports: pkg/lockfile, internal/mcpwire, internal/launch (starting the
// locked entry; a remote one's URL, headers and token: Options.RemoteFromLock),
// internal/review (labels in the quarantine error), its own sub-packages and
// internal/ helpers. It must not import cmd/, internal/policy (a policy reaches
// it through Hooks), or anything that prints or exits: errors go back to
// the caller, diagnostics to Options.Stderr.
package proxy
