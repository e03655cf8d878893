package fileperm

import (
	"fmt"
	"io/fs"

	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Rule says who may change a path, and how messages name it.
type Rule struct {
	// What names the path in messages: "mcpsum's state folder".
	What string
	// Threat is what someone else could do with it: "replace the helper".
	Threat string
	// Private: the user's own (a folder mcpsum keeps state or config in):
	// owned by the user, and neither its group nor others may write it;
	// the fix is chmod 700. Otherwise only others may not write it (a
	// sticky folder, like /tmp, excepted) and the fix is chmod o-w.
	Private bool
	// Owned checks the owner of a path that is not Private: the user, or
	// root (installed software).
	Owned bool
	// Elsewhere is the next step when another user owns the path ("set
	// XDG_STATE_HOME to a folder of yours").
	Elsewhere string
}

// Error is a path someone other than the user could change.
type Error struct {
	Path  string
	Rule  Rule
	Mode  fs.FileMode
	Owner int // its owner's user id
	Me    int // the user's
	// Foreign: another user owns it (otherwise others may write it).
	Foreign bool
}

// Error is the sentence; the next step rides beside it (Hints), so that
// mcpsum prints it on a line of its own.
func (e *Error) Error() string {
	q := termtext.ShellArg(e.Path)
	if e.Foreign {
		return fmt.Sprintf("%s %s belongs to user %d, not to you (%d), so that user could %s", e.Rule.What, q, e.Owner, e.Me, e.Rule.Threat)
	}
	who := "every user"
	if e.Rule.Private {
		who = "others"
		if e.Mode&0o002 == 0 {
			who = "its group"
		}
	}
	return fmt.Sprintf("%s %s is writable by %s (mode %v), so they could %s", e.Rule.What, q, who, e.Mode, e.Rule.Threat)
}

// Fix is the command that fixes it, or "" when another user owns the path
// (nothing the user can run fixes that).
func (e *Error) Fix() string {
	switch {
	case e.Foreign:
		return ""
	case e.Rule.Private:
		return "chmod 700 " + termtext.ShellArg(e.Path)
	}
	return "chmod o-w " + termtext.ShellArg(e.Path)
}

// Hints is the next step: "fix it: " and the command, or the rule's
// Elsewhere when another user owns the path.
func (e *Error) Hints() []string {
	if fix := e.Fix(); fix != "" {
		return []string{"fix it: " + fix}
	}
	if e.Rule.Elsewhere == "" {
		return nil
	}
	return []string{e.Rule.Elsewhere}
}
