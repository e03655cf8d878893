// Package process owns the server processes mcpsum starts: the one place
// that starts a child, supervises it and ends it.
//
//   - Start runs a Spec's exact argv with exactly its environment (Environ
//     builds it from a lock's envPassthrough; BaseEnv names what every server
//     gets), in its own process group, and reaps it; Stop and StopTerm end
//     the whole group (stdin EOF, SIGTERM, SIGKILL) so no member outlives it.
//     ExitError reports an exit with the escaped tail of the child's stderr.
//   - LookPath is the one rule that turns argv[0] into the program run, for
//     unsandboxed starts and internal/sandbox alike.
//   - Guard hardens the running program before it starts servers (Linux:
//     child subreaper, non-dumpable, environment block cleared) and makes
//     Stop sweep a stopped server's daemonised descendants; Protections says
//     which protections hold.
//   - ReadStat and ParseStat are the one reader of /proc/PID/stat; GroupAlive
//     tells whether a process group has a live (non-zombie) member.
//
// What the child says is not read here: internal/mcpwire frames its stdout into
// messages, the proxy streams it. Nothing here prints or exits.
//
// It is a leaf: it imports only internal/termtext of mcpsum, and must not
// import a pkg/ package or cmd/.
package process
