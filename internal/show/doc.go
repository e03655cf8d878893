// Package show describes a lockfile's content for a reviewer: the model of
// `mcpsum show` (per server: command, environment, era, log key, every item
// with its digest, the policy, and what internal/review and internal/launch find about
// it), its text and show --strict's verdict on shadowing, and how one locked item is written out in full, every
// word a server wrote escaped with internal/termtext, never cut. internal/verify
// writes added and changed items with it, so show and verify describe an
// item alike.
//
// It renders to an io.Writer it is handed; it never prints on its own,
// exits, starts a server or writes a file. It imports internal helpers
// (hint, jsonscan, mcpspec, termtext) and pkg/lockfile, internal/mcpwire (the base
// environment), internal/launch (program, working folder, warnings, log key) and
// internal/review, and must not import cmd/ or internal/verify.
package show
