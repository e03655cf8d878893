package launch

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Locks written before mcpsum declared its fixed client capabilities were
// made declaring none. A server whose surface depends on them (the npm
// server-everything adds tools for roots, sampling and elicitation) then
// shows the extra items as added. When that is all that changed, verify
// lists the server once more declaring nothing; if it then matches the lock
// exactly, Options.Note says so, so the reviewer knows where the items come
// from. The note observes, it does not exonerate (a server can show anything
// to a capable client): the finding stays definitional drift, and the added
// items must be reviewed and the entry re-locked.

// explainAdded calls opts.Note when every definitional difference between
// the lock and what the server serves now is an added item, and the server
// declaring no client capabilities serves exactly the lock.
func explainAdded(ctx context.Context, name string, locked, now *lockfile.Server, opts Options) {
	if opts.Note == nil {
		return
	}
	var added []string
	for _, f := range lockfile.Compare(locked, now) {
		if f.Class != lockfile.Definitional {
			continue
		}
		if f.Change != lockfile.Added || f.Name == "" {
			return
		}
		q, _ := termtext.Quote(f.Name)
		added = append(added, f.Kind+" "+q)
	}
	if len(added) == 0 || !matchesDeclaringNone(ctx, name, locked, opts) {
		return
	}
	opts.Note(name, fmt.Sprintf("listed declaring no client capabilities, as mcpsum locked before it declared %s, the server matches the lock exactly: the added %s are what it shows a client that declares them (as the proxy's session with it does now). This lock predates that; the items still reach the model through the proxy: review them like any new item, then re-lock this entry.",
		strings.Join(mcpwire.DeclaredCapabilities, ", "), strings.Join(added, ", ")))
}

// matchesDeclaringNone lists the entry in its locked era declaring no client
// capabilities and reports whether that has no definitional difference from
// the lock. Any failure is "no".
func matchesDeclaringNone(ctx context.Context, name string, locked *lockfile.Server, opts Options) bool {
	p, cleanup, err := Connect(name, locked, opts)
	if err != nil {
		return false
	}
	defer cleanup()
	copts := opts.clientOptions()
	copts.DeclareNone = true
	c := mcpwire.NewClient(p, copts)
	defer c.Close(stopGrace)
	h, err := mcpwire.Handshake(ctx, c, locked.Era())
	if err != nil {
		return false
	}
	s, err := mcpwire.ListAll(ctx, c, h)
	if err != nil {
		return false
	}
	e, err := EntryFor(locked, h, s)
	if err != nil {
		return false
	}
	for _, f := range lockfile.Compare(locked, e) {
		if f.Class == lockfile.Definitional {
			return false
		}
	}
	return true
}
