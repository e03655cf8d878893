// Package pkgspec reads the registry package a launcher command line runs
// (npx, bunx, uvx, go run, docker/podman run): whether it is pinned to an
// exact version, and the pinned spelling to suggest when it is not. import
// (warnings) and the transparency log (keys) share this one reading.
//
// It is an internal helper: it imports nothing of mcpsum, and must never
// import a pkg/ package or cmd/.
package pkgspec
