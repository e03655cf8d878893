//go:build !unix

package pgwire

import (
	"errors"
	"net"
	"time"
)

// readable reports whether nc has bytes or its end: a read that waits a
// millisecond (a deadline already past would not read at all). A byte
// read is lost, but a connection with one is closed anyway.
func readable(nc net.Conn) bool {
	nc.SetReadDeadline(time.Now().Add(time.Millisecond))
	defer nc.SetReadDeadline(time.Time{})
	var b [1]byte
	_, err := nc.Read(b[:])
	var ne net.Error
	return !errors.As(err, &ne) || !ne.Timeout()
}
