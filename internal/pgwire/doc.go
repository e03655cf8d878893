// Package pgwire is a small client of PostgreSQL's frontend/backend protocol
// (version 3.0): what mcpsum's shared state (internal/pgstate) needs and no
// more. It replaced github.com/jackc/pgx, whose packages and their
// initializers (pgtype, pgconn, x/text's cases and precis) ran at every
// start of every mcpsum command and made the binary 5 MB larger.
//
// It takes postgres:// URLs (ParseURL), speaks TLS (sslmode disable,
// prefer, require, verify-ca, verify-full), authenticates with trust,
// SCRAM-SHA-256 (the server's signature verified; bound to the TLS
// certificate when the server offers SCRAM-SHA-256-PLUS), md5, and a
// cleartext password only over verified TLS or a Unix socket, and runs
// statements with the extended protocol (text and bytea parameters and
// results, NULL) or, with no parameters, the simple one. A Pool shares connections among
// goroutines and drops broken ones.
//
// The server's bytes are untrusted: every message length is checked
// against a bound before anything is allocated for it, every field is read
// with its bounds checked, and text the server sends is cleaned of control
// characters before it reaches an error. Errors never carry the password.
// It imports nothing of mcpsum.
package pgwire
