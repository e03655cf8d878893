//go:build !unix

package attestproto

// Trusted has no ownership rule to check outside Unix.
func Trusted(string) error { return nil }
