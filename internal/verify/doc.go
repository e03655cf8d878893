// Package verify is `mcpsum verify` as a library: run each selected server of
// a lock with its locked command in its locked era (internal/launch), compare what it
// serves with its entry (lockfile.Compare), label each difference
// (internal/review), and report; or, with no server started, check a lockfile's
// own digests and stored log proofs (Offline). The Report is the one model;
// the text for a terminal, the --json object and the SARIF 2.1.0 log for
// code scanning are renderings of it, written to an io.Writer the caller
// hands in. Accept renders the review of `lock --accept` (locker.Review)
// with the same diff. A CI bot or a test calls Verify without the CLI.
//
// It never prints on its own or exits; the one file it writes is the SARIF
// log the caller names (Report.WriteSARIFFile), and it never writes the
// lockfile. The caller maps an Outcome to an exit code and passes the
// code in where a rendering records it.
//
// It imports internal/jsonscan, internal/termtext, internal/redact,
// internal/statefile (the SARIF file), internal/locker (reading the
// lock), pkg/lockfile, internal/launch, internal/review, internal/show (how an item is
// written in full) and pkg/sumdb (the log's configuration), and must not
// import cmd/.
package verify
