package policy

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// What suggest-policy and taint list show a person. Every string a server
// or a client wrote is escaped (internal/termtext).

// WriteReasons writes why each tool was labelled, one line each, and names
// the unlabelled tools a reviewer should look at twice: hints cannot tell
// whose text a tool returns, and reading is what a source does.
func (sg Suggestion) WriteReasons(w io.Writer) {
	var unlabelled []string
	for _, r := range sg.Reasons {
		var labels []string
		if r.Source {
			labels = append(labels, "source")
		}
		if r.Sink {
			labels = append(labels, "sink")
		}
		if len(labels) == 0 {
			labels = append(labels, "unlabelled")
			unlabelled = append(unlabelled, termtext.ShellArg(r.Tool))
		}
		fmt.Fprintf(w, "%-12s %s  (%s)\n", strings.Join(labels, "+"), termtext.FirstLine(r.Tool, 60), r.Why)
	}
	if len(unlabelled) > 8 {
		unlabelled = append(unlabelled[:8], "…")
	}
	if len(unlabelled) > 0 {
		fmt.Fprintf(w, "note: hints cannot tell whose text a tool returns; a tool that returns files, mail, issues or pages\n"+
			"  others wrote is a source even when it stays in a closed world: review %s\n", strings.Join(unlabelled, ", "))
	}
}

// Paste is the suggestion as the JSON object to paste into a server's
// entry: {"policy": {"taint": {"sources": [...], "sinks": [...]}}}.
func (sg Suggestion) Paste() any {
	type taint struct {
		Sources []string `json:"sources"`
		Sinks   []string `json:"sinks"`
	}
	return map[string]any{"policy": map[string]any{"taint": taint{sg.Taint.Sources, sg.Taint.Sinks}}}
}

// WriteSessions writes each tainted session for taint list: its clients,
// whether one still runs, what tainted it when, what the user allowed for
// the rest of the session, and the command that clears it after review.
func WriteSessions(w io.Writer, all []Listed) {
	for i, s := range all {
		if i > 0 {
			fmt.Fprintln(w)
		}
		live := "gone"
		if s.Live {
			live = "live"
		}
		fmt.Fprintf(w, "session %s (%s)\n", s.Session, live)
		if s.Problem != "" {
			fmt.Fprintf(w, "  %s: it counts as tainted\n", termtext.FirstLine(s.Problem, 300))
		}
		for _, c := range s.Clients {
			fmt.Fprintf(w, "  client pid %d: %s\n", c.PID, termtext.FirstLine(c.Command, 200))
		}
		for _, src := range s.Sources {
			where := " on server " + termtext.ShellArg(src.Server)
			if src.Server == "" {
				where = ""
			}
			fmt.Fprintf(w, "  tainted by %s%s: %d time%s, first %s, last %s\n", termtext.ShellArg(src.Label), where,
				src.Count, plural(src.Count), src.First.UTC().Format(time.RFC3339), src.Last.UTC().Format(time.RFC3339))
		}
		for _, g := range s.Grants {
			fmt.Fprintf(w, "  allowed for the session: %s %s on server %s with arguments %s (granted %s)\n", g.Method, termtext.ShellArg(g.Name),
				termtext.ShellArg(g.Server), termtext.FirstLine(g.Args, 80), g.Granted.UTC().Format(time.RFC3339))
		}
		fmt.Fprintf(w, "  after review: mcpsum taint reset %s\n", s.Session)
	}
}

// WriteList is `taint list`: it removes the sessions whose clients are
// gone (Cleanup; a failure of that goes to warn, the list is shown anyway)
// and writes the tainted ones to w (WriteSessions), or that there are none.
func (st *Store) WriteList(w io.Writer, warn func(error)) error {
	if _, err := st.Cleanup(); err != nil {
		warn(err)
	}
	all, err := st.List()
	if err != nil {
		return err
	}
	if len(all) == 0 {
		fmt.Fprintf(w, "no tainted sessions (state in %s)\n", st.Dir())
		return nil
	}
	WriteSessions(w, all)
	return nil
}

// WriteReset is `taint reset`: it clears session id (Reset), or every
// session with all (ResetAll), and says so on w.
func (st *Store) WriteReset(w io.Writer, id string, all bool) error {
	if !all {
		if err := st.Reset(id); err != nil {
			return err
		}
		fmt.Fprintf(w, "reset session %s\n", id)
		return nil
	}
	ids, err := st.ResetAll()
	if err != nil {
		return err
	}
	s := "s"
	if len(ids) == 1 {
		s = ""
	}
	fmt.Fprintf(w, "reset %d session%s\n", len(ids), s)
	return nil
}

// WriteSuggestion writes to w, for the reviewer, why each tool of sg is
// labelled (WriteReasons), a note when entry name (s) already has a taint
// policy, and where in the lockfile at path the suggestion goes.
func (sg Suggestion) WriteSuggestion(w io.Writer, s *lockfile.Server, name, path string) {
	sg.WriteReasons(w)
	if s.Policy != nil && s.Policy.Taint != nil {
		fmt.Fprintf(w, "note: server %s already has a taint policy; compare before replacing it\n", termtext.ShellArg(name))
	}
	fmt.Fprintf(w, "Review, then paste this into servers.%s in %s (hints are the server's own claims):\n", termtext.ShellArg(name), path)
}
