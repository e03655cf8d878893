//go:build !unix

package fileperm

import "os"

// Check has no owner or mode bits to check outside Unix.
func Check(path string, r Rule) error { return nil }

// CheckInfo has no owner or mode bits to check outside Unix.
func CheckInfo(path string, fi os.FileInfo, r Rule) error { return nil }
