// Package review is what mcpsum tells a reviewer about a lock beyond its
// content: names that look like other names (within a server and across the
// servers of one lock), a server's text that names another server's tools,
// and, for drift, what kind of change each finding is (descriptive wording,
// a new destination, text addressed to the model, a widened schema, a
// weakened annotation, ...). The labels and their rules are data in
// labels.go and rules.go.
//
// It reads locked and observed entries (pkg/lockfile) and never prints,
// starts a server or writes a file. It imports lockfile and internal helpers
// (mcpspec, termtext, jsonscan, lookalike), and nothing else of mcpsum.
package review
