package hint

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Error is Err with next steps. Its Error() is Err's message alone: the
// hints are for the renderer (Of, Lines), never folded into the sentence.
type Error struct {
	Err   error
	Steps []string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Hints are e's next steps.
func (e *Error) Hints() []string { return e.Steps }

// Wrap adds hints to err (nil stays nil; no hints returns err as it is).
func Wrap(err error, hints ...string) error {
	hints = slices.DeleteFunc(slices.Clone(hints), func(h string) bool { return h == "" })
	if err == nil || len(hints) == 0 {
		return err
	}
	return &Error{Err: err, Steps: hints}
}

// New is an error with message msg and the hints.
func New(msg string, hints ...string) error { return Wrap(errors.New(msg), hints...) }

// Errorf is fmt.Errorf(format, args...) with one hint.
func Errorf(h, format string, args ...any) error { return Wrap(fmt.Errorf(format, args...), h) }

// Of returns the hints of every error in err's tree (errors.Join and
// multiple %w included) that has some, outermost first, each once: an
// Error's, and those of any error with a method Hints() []string (a
// library's own typed error, such as pkg/lockfile's).
func Of(err error) []string {
	var out []string
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if h, ok := e.(interface{ Hints() []string }); ok {
			for _, s := range h.Hints() {
				if !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	return out
}

// Lines renders err for a person: its message, then one line per hint,
// each as prefix + "hint: " + the hint. A hint of several lines keeps
// them, indented under its first.
func Lines(err error, prefix string) string {
	if err == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(err.Error())
	for _, h := range Of(err) {
		b.WriteString("\n" + prefix + "hint: ")
		b.WriteString(strings.ReplaceAll(h, "\n", "\n"+prefix+"      "))
	}
	return b.String()
}
