package process

import "sync"

// before holds the set-up Before started that every child start waits for.
var before struct {
	mu      sync.Mutex
	pending []chan struct{}
}

// Before runs f on a goroutine of its own and returns at once; every Start
// and StartKept of this process waits until f has returned, and so does
// Protections. It is for set-up that must be in force before any child
// exists (Guard, the signal handlers that end a server with mcpsum) but
// that the work leading to the first start does not need: on a machine
// with a second core that work (reading flags and the lock) and the set-up
// then overlap instead of adding up (docs/performance.md, the proxy's
// connect). No child is started before f is done, whatever it does.
func Before(f func()) {
	done := make(chan struct{})
	before.mu.Lock()
	before.pending = append(before.pending, done)
	before.mu.Unlock()
	go func() {
		defer close(done)
		f()
	}()
}

// waitBefore waits for every f given to Before so far. Call it without
// guard.mu held: Guard, run by Before, takes it.
func waitBefore() {
	before.mu.Lock()
	pending := before.pending
	before.mu.Unlock()
	for _, done := range pending {
		<-done
	}
}

// Settle waits for the set-up given to Before. A child started other than
// through Start or StartKept (a helper program, a browser) calls it first:
// it must not see mcpsum before the guard is up either.
func Settle() { waitBefore() }
