// Package jsonc parses JSON with comments (JSONC: // and /* */ comments,
// trailing commas, a leading UTF-8 byte-order mark) into a tree that records
// the byte offsets of every key and value, so a caller can change one value
// by splicing bytes and leave every other byte of the file where it was:
// comments, formatting, unknown fields and key order survive exactly.
//
// It is a dependency-free helper (standard library only), shared by the
// client-config importer and by anything that needs to point at a line of a
// JSON file (SARIF locations in mcp.lock). Duplicate keys are kept, in file
// order, for the caller to refuse; strings are decoded exactly as JSON does.
//
// It is an internal helper: it imports nothing of mcpsum, and must never
// import a pkg/ package or cmd/.
package jsonc
