// Package sumlog is the operator's side of mcpsum's transparency log of
// surfaces (cmd/mcpsum-log): a Tessera log (POSIX folder by default, MySQL
// through the same seam) of `mcp-surface v1` records, one per key, and the
// HTTP handler that serves its C2SP tlog-tiles and the key lookups.
//
// It runs on Linux and macOS: Tessera's POSIX storage and mcpsum's state
// files (key, index, add lock) are Unix-only, so elsewhere (Windows) the
// package builds but Supported, and every append to the folder, return
// ErrUnsupported (storage_folder.go, storage_other.go).
//
// Only the mcpsum-log binary links this package (and Tessera): mcpsum's
// client side is pkg/sumdb.
//
// It imports pkg/sumdb (the record and key format it serves) and internal/
// helpers, must not import any other pkg/ package, and only
// cmd/mcpsum-log imports it.
package sumlog
