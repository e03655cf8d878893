// Package mcpspec is mcpsum's one table of Model Context Protocol facts: the
// protocol eras and versions, the item kinds and how each is listed and keyed,
// the _meta member names of 2026-07-28, the JSON-RPC and MCP error codes and
// mcpsum's limits on what a server may list.
//
// Every other package reads these facts from here instead of spelling them
// again, so a version, a method name or a limit changes in one place. It holds
// constants and pure lookups only: it imports nothing from mcpsum and does no
// I/O, so every package, leaves included, may import it.
package mcpspec
