// Package sandbox runs an MCP server under an OS sandbox (LOCKFILE.md, "Sandbox
// (optional, I5)"). On Linux, [Prepare] validates a policy and returns a [Launch]:
// a re-execution of the running binary (/proc/self/exe) in new user, mount, network,
// pid, ipc, uts and cgroup namespaces. That process, pid 1 of the sandbox (see
// [Helper]), builds a filesystem view holding only the runtime base and the policy
// paths (read-only except the write paths and ${TMP}), brings up loopback, runs the
// egress forwarder when the policy lists hosts, then confines one locked OS thread
// (all capabilities dropped, Landlock with ABI >= 3 checked here and a canary,
// no_new_privs, mcpsum's own seccomp filter) and forks the server from that thread
// in a new session. It reaps every process and forwards signals; when the server
// exits, pid 1 exits with its status and the kernel ends the whole sandbox.
//
// Network: an empty allowlist means a network namespace holding only loopback.
// host:port entries go through HTTPS CONNECT to an egress proxy that runs in the
// calling process on a unix socket, resolves names itself, dials only vetted
// addresses and writes one JSON audit line per connection.
//
// Where the kernel cannot enforce the policy, Prepare fails closed with an
// [*UnavailableError] saying why and what one-time step fixes it. On other
// systems Prepare returns an error matching [ErrUnsupported].
//
// Nothing here prints or exits.
//
// It is a leaf: it imports only internal/ helpers of mcpsum
// (internal/netrule, internal/policysyntax, internal/process,
// internal/statefile), and must not import any other pkg/ package or cmd/.
package sandbox
