// Package importer is `mcpsum import` as a library. Plan decides which
// entries of MCP client configs go into which lockfile, what each entry
// locks as (a command and the names of its environment, or a remote
// server's URL and the variables of its headers), why an entry is skipped,
// which version lookups a warning names, the `mcpsum proxy` command line
// each rewritten entry gets, where two configs collide, and which configs an
// undo reads. Apply carries the plan out: it asks (through a hook) before a
// project config's commands run, locks each lockfile's servers
// (internal/locker), merges those that locked and rewrites their configs,
// reporting each step as an Event. The renderings of the plan, a rewrite,
// the listing of configs and an undo write to an io.Writer the caller hands
// in; the command line reads the terminal, shows progress and picks exit
// codes.
//
// It sits above internal/clientconfig (the client files, a leaf that knows no
// lockfile), pkg/lockfile, internal/launch (how a server is locked) and internal/locker
// (running and merging locks), so none of them grows a second concern. It
// imports internal/pkgspec, internal/statefile, internal/termtext and those
// packages of mcpsum, and must not import cmd/, internal/proxy or internal/verify.
package importer
