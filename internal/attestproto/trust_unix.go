//go:build unix

package attestproto

import (
	"path/filepath"

	"github.com/mcpsum/mcpsum/internal/fileperm"
)

// Trusted refuses an mcpsum-attest that another user could have
// replaced: the helper decides whether a signature is good, so a file (or
// a folder holding it) that others may write, or a file owned by another
// user than the caller or root, would let them forge that verdict
// (internal/fileperm, the rule of ssh's StrictModes).
func Trusted(path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	// The folder the helper was found in counts too: when the helper is a
	// symlink, whoever can write that folder can swap the link.
	for _, p := range []string{real, filepath.Dir(real), filepath.Dir(path)} {
		what := "the signing helper's folder"
		if p == real {
			what = "the signing helper"
		}
		if err := fileperm.Check(p, fileperm.Rule{What: what, Threat: "replace the helper and forge its verdicts",
			Owned: p == real, Elsewhere: "install the helper yourself"}); err != nil {
			return err
		}
	}
	return nil
}
