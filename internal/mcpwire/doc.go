// Package mcpwire is mcpsum's own MCP wire layer (client side): newline-delimited
// JSON-RPC framing with raw bodies, the stdio transport over a server process
// that internal/process started (Stdio), the Streamable HTTP transport
// (HTTP, over internal/mcpwire/mcphttp's Session), a
// JSON-RPC client, the era probe of LOCKFILE.md's "Protocol era" section, and
// the inventory of a server's surface (tools, prompts, resources, resource
// templates) kept as raw JSON. Starting, supervising and ending the process
// is internal/process's.
//
// Nothing here prints or exits. Everything a server sent is escaped with internal/termtext
// before it reaches an error message.
//
// It is a leaf: it imports only its own mcphttp and internal/ helpers of
// mcpsum (internal/jsonscan, internal/mcpspec, internal/netrule,
// internal/process, internal/termtext), and no other application package.
package mcpwire
