// Package locker plans and records the lock side of mcpsum. It reads the
// lockfile a command works on (digests checked, I3; its signature too, when
// asked), selects its entries and tells whether a run rewrote it; plans a
// new lock (the era to probe first, the policy kept, a broken entry to
// replace, what the new entry replaces); runs several locks at once; merges
// the entries that locked into the existing lock under its file lock
// (policy and log proofs kept, dropped taint labels and era changes noted,
// shadowing refused under Strict); removes an entry; decides which changes
// `lock --accept` may take in; and lists what a reviewer should be warned
// about after a lock. Lock takes `mcpsum lock` as its flags ask it
// (Request: refuses the flags that do not apply) and runs the form asked
// for; LockNew and Relock are its sequences (validate, plan, run the locks,
// check the log, review, merge, name what failed); the locks run here, and
// the caller only hears their progress (Progress). Sign has the signing
// helper sign the lockfile's exact bytes and writes the bundle. The text of
// a lock's progress line and of what a write noted and warns of
// (ProgressLine, WriteWritten) is here too, written to the io.Writer the
// caller hands in.
//
// It never prints or exits: it returns values and typed errors
// (UsageError, NoLockfileError, ShadowError, FailedError,
// InterruptedError), and reaches the
// user through the Hooks the caller supplies; cmd/mcpsum renders and maps
// errors to exit codes in one place.
//
// It imports internal/attestproto (to sign and verify a lockfile's bytes),
// internal/hint, internal/netrule, internal/statefile, internal/termtext,
// pkg/lockfile, internal/oauth (a client metadata URL's rule),
// internal/launch and internal/review of mcpsum, and must not import cmd/, internal/verify, internal/show, internal/proxy or
// internal/importer (those render, serve or plan imports on top of it).
package locker
