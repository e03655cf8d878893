//go:build !unix

package main

// helperTrusted has no ownership rule to check outside Unix.
func helperTrusted(string) error { return nil }
