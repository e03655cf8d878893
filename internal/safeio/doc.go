// Package safeio reads files named by users (lockfiles, signature bundles)
// without trusting what the name points at: it opens without blocking (a FIFO
// would hang a plain open until a writer comes), refuses anything but a
// regular file (FIFOs, devices such as /dev/zero, directories, sockets) and
// caps the size (a 2 GiB file is not read into memory).
//
// It is an internal helper: it imports nothing of mcpsum, and must never
// import a pkg/ package or cmd/.
package safeio
