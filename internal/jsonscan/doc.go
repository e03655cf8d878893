// Package jsonscan finds the boundaries of JSON values in a byte slice
// without decoding them. Walking the members of a multi-megabyte object this
// way costs about a memory scan (strings are skipped with bytes.IndexByte),
// where encoding/json would decode or tokenize every value.
//
// It exists because the lockfile parser (pkg/lockfile), the inventory reader
// (internal/mcpwire) and the proxy's envelope scanner (internal/proxy) each need the
// same primitives and had grown three copies of them. It is a leaf utility,
// not a feature package: it imports only the standard library and nothing
// from mcpsum, so the leaves pkg/lockfile and internal/mcpwire may import it
// without breaking the rule that leaves import no sibling.
//
// Every function checks bounds and returns ErrSyntax on malformed input; none
// panics. On valid JSON the boundaries are exactly those encoding/json sees.
// On invalid JSON the scanner is not a validator (callers that need one run
// json.Valid), but it refuses what it cannot walk: a value that does not
// start like a JSON value, a literal or number followed by a stray byte, an
// unterminated string, object or array.
package jsonscan
