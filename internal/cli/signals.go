package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// NotifyContext is signal.NotifyContext split in two: ctx is cancelled by
// the first of sigs once install has run (its cause says which signal, as
// signal.NotifyContext's does), and stop undoes both. install is meant for
// another goroutine (process.Before): Go installs a handler with a round
// trip to a thread of its own, created for it, which on a machine where
// threads are dear is a fair part of a process's start. Call install
// exactly once; stop waits for it.
func NotifyContext(parent context.Context, sigs ...os.Signal) (ctx context.Context, install, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	installed := make(chan struct{})
	install = func() {
		defer close(installed)
		signal.Notify(ch, sigs...)
		go func() {
			select {
			case s := <-ch:
				cancel(signalError(s.String() + " signal received"))
			case <-ctx.Done():
			}
		}()
	}
	stop = func() {
		cancel(nil)
		<-installed
		signal.Stop(ch)
	}
	return ctx, install, stop
}

// signalError is the cause of a context a signal cancelled.
type signalError string

func (s signalError) Error() string { return string(s) }

// NotifyPipe makes a write to a closed pipe (stdout, once the client died)
// fail with EPIPE instead of killing the process with SIGPIPE once install
// has run (like NotifyContext's, meant for process.Before); stop undoes it
// and waits for install.
func NotifyPipe() (install, stop func()) {
	ch := make(chan os.Signal, 1)
	installed := make(chan struct{})
	install = func() {
		defer close(installed)
		signal.Notify(ch, syscall.SIGPIPE)
	}
	stop = func() {
		<-installed
		signal.Stop(ch)
	}
	return install, stop
}
