// Package locker plans and records the lock side of mcpsum. It reads the
// lockfile a command works on (digests checked, I3; its signature too, when
// asked), selects its entries and tells whether a run rewrote it; plans a
// new lock (the era to probe first, the policy kept, a broken entry to
// replace, what the new entry replaces); runs several locks at once; merges
// the entries that locked into the existing lock under its file lock
// (policy and log proofs kept, dropped taint labels and era changes noted,
// shadowing refused under Strict); removes an entry; decides which changes
// `lock --accept` may take in; and lists what a reviewer should be warned
// about after a lock. LockNew and Relock are the sequences of `mcpsum lock`
// (validate, plan, run the locks, check the log, review, merge, name what
// failed); the locks run here, and the caller only hears their progress
// (Progress).
//
// It never prints or exits: it returns values and typed errors
// (UsageError, NoLockfileError, ShadowError, FailedError), and reaches the
// user through the Hooks the caller supplies; cmd/mcpsum renders and maps
// errors to exit codes in one place.
//
// It imports internal/attestproto (to verify a signed lockfile's bytes),
// internal/netrule, internal/termtext, pkg/lockfile, internal/launch and internal/review
// of mcpsum, and must not import cmd/, internal/verify, internal/show, internal/proxy or
// internal/importer (those render, serve or plan imports on top of it).
package locker
