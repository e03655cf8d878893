// Package pgstate is the state that the replicas of `mcpsum serve` share in
// PostgreSQL (--state postgres://...): the taint state documents of the
// client sessions, one per session, changed one at a time across replicas
// (it is a policy.KeyDocs, so internal/policy's rules run unchanged over
// it); the approval key every replica signs 2026-07-28 approvals with; and
// the registry of where each replica is reached, so that any replica can
// forward a legacy session's requests to the one that holds it.
//
// It imports of mcpsum only internal/pgwire, mcpsum's own small client of
// PostgreSQL's protocol (internal/serve hands it to internal/policy as
// Docs). Nothing here prints; errors name the database without its
// credentials.
package pgstate
