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
// Stable API: Config (ParseConfig, ConfigFromEnv, WithWitnesses, Excluded,
// CheckProof), Client (Lookup, Check, Remember), Key, Module, Record,
// ParseRecord, Digest, Surface, Identity and the error types.
//
// It is a leaf: it imports only internal/ helpers of mcpsum
// (internal/netrule, internal/pkgspec, internal/safeio, internal/statefile,
// internal/termtext), and must not import any other pkg/ package or cmd/.
package sumdb
