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
// # Stability
//
// This is one of mcpsum's two public packages (with pkg/sumdb); everything
// else is internal/. Across versions of mcpsum a user may rely on:
//
//   - The format. A file this package wrote or accepted is accepted by
//     every later version (a fix that closes a hole in the format's checks
//     is the one exception, and is said in the release notes); a new
//     lockfileVersion is added, never an old one changed. Marshal of the
//     same File writes the same bytes.
//   - The digests. Digest, Canonical and ExactDigest compute what
//     LOCKFILE.md specifies (RFC 8785, sha256, the "sha256:" prefix); a
//     digest recorded once is never computed differently.
//   - These names keep their meaning: Load, Parse, ReadFile, Marshal,
//     Update, UpdateFrom; File, Server, Digests, Policy (and its Sandbox,
//     Filesystem, Network, Taint), OAuth; Digest, Canonical, ExactDigest,
//     ItemKey, KeyField, ValidName, ValidEnvName; Compare, CompareDigests,
//     DataChanges, HasDefinitional, Finding and its Class and change
//     constants; FormatError, IntegrityError, LinkError; the Kind*, Era*
//     and version constants. Fields and functions may be added; none of
//     these is removed or changes what it means without a new major
//     version of the module.
//
// Not promised: the text of error messages and of a Finding's Detail (match
// errors with errors.As on the types above, findings by Class and Change),
// and the helpers mcpsum's own commands use to edit a lockfile in place
// (ParseDiscarding, UpdateDiscarding, KeepPolicy, NewServer, Locator,
// Region, ValidatePath, ValidateHostPort, Unpinnable), which may change
// with them, as do ErrMergeConflict, ConflictSides, ParseLoose, Loose and
// ReplaceConflicted (how lock resolves a merge conflict) and the Hints of
// FormatError and IntegrityError.
//
// It is a leaf: it imports only internal/ helpers of mcpsum (internal/hint, internal/jsonc,
// internal/jsonscan, internal/mcpspec, internal/netrule,
// internal/policysyntax, internal/safeio, internal/statefile,
// internal/termtext), and must not import any other pkg/ package or cmd/.
package lockfile
