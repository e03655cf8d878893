// Package importer plans `mcpsum import`: which entries of MCP client
// configs go into which lockfile, what each entry locks as (a command and the
// names of its environment, or a remote server's URL and the variables of its
// headers), why an entry is skipped, which version lookups a warning names,
// the `mcpsum proxy` command line each rewritten entry gets, where two
// configs collide, and which configs an undo reads. It returns the plan as
// values (lines to show, candidates to lock, rewrites to write); the command
// line renders them, asks the user, runs the locks and picks exit codes.
//
// It sits above pkg/clientconfig (the client files, a leaf that knows no
// lockfile) and pkg/lockfile, so neither leaf grows a second concern. It
// imports internal/pkgspec, internal/termtext and those two
// packages of mcpsum, and must not import cmd/, pkg/pin or pkg/proxy.
package importer
