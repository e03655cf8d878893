// Package review is what mcpsum tells a reviewer about a lock beyond its
// content: names that look like other names (within a server and across the
// servers of one lock, or of one client's servers in a shared user lock), a
// server's text that names another server's tools in any spelling
// (spelling.go), and, for drift, what kind of change each finding is
// (hidden text, orders to the model, sensitive data, a new destination, a
// widened schema, a weakened annotation, reworded or descriptive wording,
// ...). The labels and their rules are data in labels.go, rules.go,
// hidden.go and language.go; words.go decides what wording is descriptive.
//
// It reads locked and observed entries (pkg/lockfile) and never prints,
// starts a server or writes a file. It imports lockfile and internal helpers
// (mcpspec, termtext, jsonscan, lookalike), and nothing else of mcpsum.
package review
