// Package lockfile reads, checks, writes and compares mcp.lock, the reviewed,
// pinned MCP surface of each server (see the seed's LOCKFILE.md, versions 1 and 2).
//
// Parse is strict (unknown keys, wrong types, duplicate keys and bad policy
// entries are *FormatError) and recomputes every digest on every load (a
// mismatch is *IntegrityError; each has Hints, the next steps for a person).
// Marshal is deterministic. Update is the writer: an exclusive lock beside
// the file, then an atomic rename. A file git left with merge conflict
// markers fails Parse with ErrMergeConflict; ConflictSides and ParseLoose
// read its two sides, and ReplaceConflicted writes the resolution.
//
// Items (tools, prompts, resources, resource templates) are kept as the raw
// JSON the server sent, compacted (whitespace removed; key order and string
// escapes untouched), so a field mcpsum does not model is still pinned and the
// proxy can serve an item on one JSON-RPC line. Items are sorted by key in byte
// order (tool and prompt name, resource uri, template uriTemplate).
//
// It is a leaf: it imports only internal/ helpers of mcpsum (internal/hint, internal/jsonc,
// internal/jsonscan, internal/mcpspec, internal/netrule,
// internal/policysyntax, internal/safeio, internal/statefile,
// internal/termtext), and must not import any other pkg/ package or cmd/.
package lockfile
