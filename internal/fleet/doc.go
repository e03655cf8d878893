// Package fleet puts an organisation's lock on every machine and makes each
// MCP client enforce it with its own managed policy: `mcpsum fleet sync`,
// `fleet release`, `fleet emit` and `fleet status` as a library.
//
// An org lock travels with a release statement (Release, the file
// ORG.release.json): the org lock's name, a serial, an expiry and the
// SHA-256 of the lock's exact bytes, signed with Sigstore through the
// signing helper (internal/attestproto), so a serial can be neither moved
// to another lock (or another org lock) nor replayed with a lower one, and
// a mirror cannot hold a machine on an old release past its expiry. Sync
// installs a release only when a signer of the trust file beside the lock
// signed it, it is of the org lock the trust file names and unexpired, its
// serial is not below the highest this machine installed (the sync record
// keeps it), and, with a transparency log configured, every keyed entry's
// surface is the logged one; anything else is a *RefusedError and nothing
// is written.
// The lock's own format (pkg/lockfile) is untouched.
//
// Emit turns the installed lock into each client's managed policy
// (Clients): exact-argv allowlists naming `mcpsum proxy --lockfile ORG
// --name N`, or URL entries naming `mcpsum serve`'s /servers/N/mcp. Status
// reads those policies back and reports drift.
//
// It is in layer 3: it imports pkg/lockfile, pkg/sumdb, internal/launch
// (log keys) and internal/clientconfig (TOML quoting), and helpers (attestproto, jsonscan, netrule, safeio,
// statefile, termtext); never cmd/ or a higher layer. It never prints or
// exits: results are values, notes go to a callback, refusals are typed.
package fleet
