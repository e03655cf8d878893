// Package layering holds no product code: its test checks that every
// package of mcpsum imports only what docs/architecture.md allows (the
// dependency direction cmd → pkg → internal, the layers within pkg/, the
// leaves that import no sibling, and the packages only one binary links),
// and that no struct of the module has more than 20 fields (a record that
// big holds several concerns).
// It reads the source tree with go/build and go/parser, so it imports nothing of mcpsum
// and nothing imports it.
package layering
