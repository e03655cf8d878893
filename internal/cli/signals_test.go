//go:build unix

package cli

import (
	"context"
	"errors"
	"syscall"
	"testing"
)

// The context of NotifyContext is cancelled by its signal once install has
// run, with the cause signal.NotifyContext gives ("… signal received": the
// interrupted command's message quotes it), and stop waits for install.
func TestNotifyContextCancelsOnSignal(t *testing.T) {
	ctx, install, stop := NotifyContext(context.Background(), syscall.SIGUSR1)
	defer stop()
	done := make(chan struct{})
	go func() { defer close(done); install() }()
	<-done
	if ctx.Err() != nil {
		t.Fatalf("cancelled before any signal: %v", context.Cause(ctx))
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.Canceled) || context.Cause(ctx).Error() != "user defined signal 1 signal received" {
		t.Fatalf("err %v, cause %q", ctx.Err(), context.Cause(ctx))
	}
}
