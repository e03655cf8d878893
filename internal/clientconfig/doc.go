// Package clientconfig reads the MCP server entries of the clients people
// already use (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Devin,
// Gemini CLI, Zed, Codex, Cline, LM Studio) and rewrites chosen entries to
// start `mcpsum proxy` instead, changing only the bytes of their command and
// args: comments, trailing commas, formatting, unknown fields and every other
// entry stay exactly where they were. It is a leaf: it knows client files,
// not lockfiles; the command line decides what to lock.
//
// Every client is a row of one table (Clients): where its files live on each
// OS, which keys hold its servers, the names of its fields, its file format
// and its workspace variable. There is no code per client.
//
// It is a leaf: it imports only internal/ helpers of mcpsum (internal/jsonc,
// internal/netrule, internal/safeio, internal/statefile), and must not
// import any pkg/ package or cmd/.
package clientconfig
