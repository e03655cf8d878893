package proxy

// A goroutine starts with a 2 KiB stack and doubles it when a call needs
// more. Each growth copies the stack and reads the binary's pc tables for
// every frame on it (runtime.copystack): the proxy's goroutines grew three
// times each, at calls 6 to 18 frames deep (encoding/json, the tracker, the
// stream relay, process start), and those table reads were 64 KiB blocks of
// the binary no other work touches (docs/performance.md: the proxy's peak
// RSS). presize8K and presize16K, called first thing in a goroutine, grow
// its stack once, to the size it reaches anyway, while only two frames are
// on it.

// presizeAt indexes the pads: a value the compiler cannot see keeps each
// pad (and so the frame) in place.
var presizeAt int

// presize8K grows the stack to 8 KiB (a 6 KiB frame).
//
//go:noinline
func presize8K() byte {
	var pad [6 << 10]byte
	return pad[presizeAt]
}

// presize16K grows the stack to 16 KiB (a 12 KiB frame).
//
//go:noinline
func presize16K() byte {
	var pad [12 << 10]byte
	return pad[presizeAt]
}
