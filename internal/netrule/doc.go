// Package netrule holds the network rules mcpsum applies wherever it connects
// somewhere on a server's behalf: which addresses count as non-public (the
// sandbox's egress proxy and the remote-server dialer refuse a name that
// resolves to one), what a remote server's URL may be, and which HTTP header
// names a lock entry may set. One definition, so pkg/lockfile (a file's
// syntax), internal/mcpwire (the dialer) and internal/sandbox (egress) cannot disagree.
// It touches no network.
//
// It is an internal helper: it imports nothing of mcpsum, and must never
// import a pkg/ package or cmd/.
package netrule
