// Package attestproto is the protocol between mcpsum and its signing helper,
// mcpsum-attest. Signing pulls in sigstore-go, whose ~265 package
// initialisers would run at every start of every mcpsum command (lock,
// verify, proxy and the sandbox stage) if it were linked into mcpsum. So
// internal/attest lives in a binary of its own, which mcpsum runs for `sign`,
// `verify --signature` and `proxy --require-signature`.
//
// The protocol, version Version:
//
//	mcpsum-attest sign   --protocol 1 [--key PRIV] [--fulcio-url U] [--rekor-url U] [--tsa-url U]
//	mcpsum-attest verify --protocol 1 --bundle B (--key PUB | identity flags) [--trusted-root R]
//
// stdin carries the exact bytes of the lockfile, read once by mcpsum: the
// helper never opens the lockfile, so what it signs or verifies is what
// mcpsum parsed and will use. Other files (keys, bundle, trusted root) are
// named by path and read by the helper; the passphrase and OIDC tokens come
// from the inherited environment. stdout carries exactly one JSON Response;
// the exit status equals Response.Exit (0 ok, 1 verdict, 2 usage, 3 could
// not decide). The helper writes nothing else to stdout.
//
// The package holds both sides' shared types and mcpsum's client: Find
// (the helper beside the executable, or an absolute --attest-helper; never
// PATH), Trusted (no helper another user could replace), and Client, which
// runs one request and believes a verdict only when it names the SHA-256 of
// the bytes sent. Errors carry the exit status mcpsum gives them (*Error).
//
// mcpsum imports it, so it must stay light: it imports the standard library
// and internal/termtext only, and must never import a pkg/ package (least of
// all internal/attest, the one importer of sigstore-go) or cmd/.
package attestproto
