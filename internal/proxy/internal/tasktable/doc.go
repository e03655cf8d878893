// Package tasktable holds the tasks of one proxy session, under a lock of
// its own: the tasks created through the session (capped, oldest forgotten
// first) with the call that created each, the legacy tasks whose
// tasks/result the proxy waits on together with the server's requests for
// them, and the cross-era task requests being answered.
//
// The table is generic over the proxy's records (I: what the hooks know of
// the creating call; R: a server's request; E: an error answer) and is
// handed the function that refuses the requests of a task it forgets,
// which it calls after releasing its lock.
//
// It imports nothing of mcpsum; it must not import internal/proxy or any of its
// other parts.
package tasktable
