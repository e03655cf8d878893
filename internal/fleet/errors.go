package fleet

import "fmt"

// Why a sync refused a release (RefusedError.Why).
const (
	WhySigner       = "signer"       // not signed by a signer of the trust file
	WhyRollback     = "rollback"     // a serial lower than the installed one
	WhyEquivocation = "equivocation" // the installed serial, another lock
	WhyMismatch     = "mismatch"     // the lock served is not the one the release names
	WhyUnlogged     = "unlogged"     // a keyed entry the transparency log does not hold
	WhyLog          = "log"          // the log holds another surface, or rolled back or forked
	WhyLock         = "lock"         // the lock does not match its own digests
	WhyName         = "name"         // a release of another org lock than the trust file names
	WhyExpired      = "expired"      // a release past its expiry
)

// RefusedError is a release sync refused on security grounds (mcpsum exits
// 1): nothing was written, the installed lock is as it was.
type RefusedError struct {
	Why string // one of the Why constants
	Err error
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused: %v; the installed lock is unchanged", e.Err)
}

func (e *RefusedError) Unwrap() error { return e.Err }

func refuse(why string, format string, args ...any) error {
	return &RefusedError{Why: why, Err: fmt.Errorf(format, args...)}
}

// UsageError is a mistake in what the caller asked (mcpsum exits 2).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}
