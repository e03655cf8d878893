// Package fileperm is mcpsum's one check of who besides the user can
// change a file or folder it trusts: its owner and its write bits (the
// rule of ssh's StrictModes). The signing helper (internal/attestproto),
// mcpsum's state folder and its config folder (internal/statefile) are
// checked with it, each with its Rule.
//
// It is a base helper: of mcpsum it imports only internal/termtext, and
// every other helper may import it.
package fileperm
