// Package mcpwire is mcpsum's own MCP wire layer (client side): newline-delimited
// JSON-RPC framing over a child's stdio with raw bodies, the child process itself
// (exact argv and environment, own process group, always reaped), a JSON-RPC client,
// the era probe of LOCKFILE.md's "Protocol era" section, and the inventory of a
// server's surface (tools, prompts, resources, resource templates) kept as raw JSON.
//
// Nothing here prints or exits. Everything a server sent is escaped with internal/termtext
// before it reaches an error message.
//
// It is a leaf: it imports only internal/ helpers of mcpsum
// (internal/execpath, internal/jsonscan, internal/mcpspec, internal/netrule,
// internal/termtext), and must not import any other pkg/ package or cmd/.
package mcpwire
