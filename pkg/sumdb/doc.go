// Package sumdb is the client side of mcpsum's transparency log of surfaces,
// the checksum database of MCP servers: the key of a locked entry, the
// record the log holds for it (`mcp-surface v1`), lookups that check the
// record's inclusion and the log's append-only growth from C2SP tlog-tiles,
// and the offline check of a stored C2SP tlog-proof.
//
// Every proof is checked with golang.org/x/mod/sumdb/note and tlog and
// github.com/transparency-dev/formats and merkle: no Merkle code of its own.
// The package imports no other mcpsum package but internal helpers, and has
// no init work, so linking it costs mcpsum's start-up nothing.
//
// The client is modelled on golang.org/x/mod/sumdb's: the checkpoints it
// has seen form one timeline, remembered per machine (Client.StateDir) and
// seeded from a lock's stored proofs (Client.Remember); an older checkpoint
// on that timeline is a stale cache, one off it a *ForkError or
// *RollbackError carrying both signed checkpoints; tiles are cached
// (Client.CacheDir) and checked on every use; nothing a log signs or sends
// can crash it.
//
// # Stability
//
// This is one of mcpsum's two public packages (with pkg/lockfile);
// everything else is internal/. Across versions of mcpsum a user may rely
// on:
//
//   - The log's data: Key (the key of an entry: its Identity), Record and
//     ParseRecord (the `mcp-surface v1` record of a Surface), Digest, Kinds
//     and Module are what a log operator and a verifier must agree on; a
//     key or record once logged is never computed differently (a new
//     record format gets a new name).
//   - The verification: a Config (ParseConfig, ConfigFromEnv: the
//     MCPSUMDB, MCPSUM_NOSUMDB and MCPSUM_WITNESS_POLICY settings;
//     WithWitnesses, Excluded) and its Client check every answer against
//     the log's signed checkpoint (Lookup, Check: inclusion, and
//     append-only growth since the timeline the client remembers, seeded
//     with Remember; CheckProof: a stored tlog-proof, offline) and refuse
//     with the typed errors MismatchError, ForkError, RollbackError,
//     ProofError, LogError and UnreachableError; IsSecurity says which of
//     them are a verdict (something is wrong with the log or the surface)
//     rather than an outage. A check that passes today is never weakened
//     in a later version.
//   - These names keep their meaning; fields and functions may be added.
//
// Not promised: the text of error messages, and how the client keeps its
// state and cache (Client.StateDir, Client.CacheDir) on disk.
//
// It is a leaf: it imports only internal/ helpers of mcpsum
// (internal/netrule, internal/pkgspec, internal/safeio, internal/statefile,
// internal/termtext), and must not import any other pkg/ package or cmd/.
package sumdb
