package verify

import (
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/review"
	"io"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/show"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// JSON is a report in its --json shape: one object for CI bots.
type JSON struct {
	Lockfile string                 `json:"lockfile"`
	Strict   bool                   `json:"strict"`
	ExitCode int                    `json:"exitCode"`
	Servers  map[string]*ServerJSON `json:"servers"`
	// Shadowing between the lock's servers (a warning; exit 1 with --strict).
	Shadowing []ShadowJSON `json:"shadowing"`
}

// ServerJSON is one server's outcome.
type ServerJSON struct {
	Status          string        `json:"status"` // ok, informational, drift, error
	Era             string        `json:"era"`
	ProtocolVersion string        `json:"protocolVersion"`
	Error           string        `json:"error,omitempty"`
	Hints           []string      `json:"hints,omitempty"` // with an error: what to do about it; with a drift of data-like resources only: policy.unpinned
	Findings        []FindingJSON `json:"findings"`
	Seconds         float64       `json:"seconds"`
	Unpinned        []string      `json:"unpinned,omitempty"`    // kinds declared data (policy.unpinned): not drift
	DataChanges     []FindingJSON `json:"dataChanges,omitempty"` // how those kinds changed since the lock
}

// FindingJSON is one difference between the lock and the server.
type FindingJSON struct {
	Class    string   `json:"class"`
	Kind     string   `json:"kind"`
	Name     string   `json:"name,omitempty"`
	Change   string   `json:"change"`
	Fields   []string `json:"fields,omitempty"`
	Locked   string   `json:"locked"`
	Observed string   `json:"observed"`
	Labels   []string `json:"labels"`        // what kind of change (internal/review); never empty
	Why      []string `json:"why,omitempty"` // what fired, server text escaped
}

// ShadowJSON is one shadowing finding between two servers of the lock.
type ShadowJSON struct {
	Rule    string    `json:"rule"` // tool-shadowing or cross-reference
	Kind    string    `json:"kind"`
	Servers [2]string `json:"servers"`
	Names   [2]string `json:"names"`
	How     string    `json:"how,omitempty"`
	// Spelling, for cross-reference: the name as the text writes it, when
	// it is not the name itself ("Send-Email", "mail.send_email").
	Spelling string `json:"spelling,omitempty"`
	Message  string `json:"message"`
}

// JSON is the report in its --json shape; exitCode is the exit code the
// caller gives its Outcome.
func (r *Report) JSON(exitCode int) *JSON {
	res := &JSON{Lockfile: r.Lockfile, Strict: r.Strict, ExitCode: exitCode, Servers: map[string]*ServerJSON{}, Shadowing: []ShadowJSON{}}
	for _, sh := range r.Shadowing {
		res.Shadowing = append(res.Shadowing, ShadowJSON{sh.Rule, sh.Kind, sh.Servers, sh.Names, sh.How, sh.Spelling, sh.String()})
	}
	for _, s := range r.Servers {
		j := &ServerJSON{Status: s.Status, Era: s.Locked.Era(), ProtocolVersion: s.Locked.ProtocolVersion,
			Findings: []FindingJSON{}, Seconds: s.seconds(), Unpinned: s.unpinned()}
		if s.Error != nil {
			j.Error, j.Hints = s.Error.Error(), hint.Of(s.Error)
		}
		if h := s.dataHint(r.Lockfile); h != "" {
			j.Hints = append(j.Hints, h)
		}
		for _, fd := range s.dataChanges() {
			j.DataChanges = append(j.DataChanges, FindingJSON{"data", fd.Kind, fd.Name, fd.Change, fd.Fields, fd.Locked, fd.Observed, []string{"data"}, nil})
		}
		for _, fd := range s.Findings {
			j.Findings = append(j.Findings, FindingJSON{fd.Class.String(), fd.Kind, fd.Name, fd.Change, fd.Fields, fd.Locked, fd.Observed, fd.Labels, fd.Why})
		}
		res.Servers[s.Name] = j
	}
	return res
}

func (s *ServerResult) seconds() float64 { return s.Took.Round(time.Millisecond).Seconds() }

// dataChanges are how the kinds the entry's policy declares data changed
// since the lock (nil when none are declared or the server was not read).
func (s *ServerResult) dataChanges() []lockfile.Finding {
	if s.Locked.Policy == nil || len(s.Locked.Policy.Unpinned) == 0 || s.Observed == nil {
		return nil
	}
	return lockfile.DataChanges(s.Locked, s.Observed)
}

// dataSummary says how the kinds declared data changed since the lock
// (counts only: the names are the server's, and the list is its data).
func (s *ServerResult) dataSummary() string {
	n := map[string]int{}
	for _, fd := range s.dataChanges() {
		n[fd.Change]++
	}
	var parts []string
	for _, ch := range []string{lockfile.Added, lockfile.Removed, lockfile.Changed} {
		if n[ch] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[ch], ch))
		}
	}
	if len(parts) == 0 {
		return "as locked"
	}
	return "changed since the lock (" + strings.Join(parts, ", ") + "), not drift"
}

// unpinned are the kinds the entry's policy declares data (not drift).
func (s *ServerResult) unpinned() []string {
	if s.Locked.Policy == nil {
		return nil
	}
	return s.Locked.Policy.Unpinned
}

// Write writes the report to w in format: "json" (JSON), "sarif" (SARIF,
// over lock, the lockfile's bytes) or text (WriteText, coloured when
// colour). exitCode and version are recorded where a rendering says them.
func (r *Report) Write(w io.Writer, format string, colour bool, lock []byte, exitCode int, version string) error {
	switch format {
	case "json":
		return show.WriteJSON(w, r.JSON(exitCode))
	case "sarif":
		return show.WriteJSON(w, r.SARIF(lock, exitCode, version))
	}
	r.WriteText(w, colour)
	return nil
}

// dataHint is review.UnpinnedHint when the server drifted and only
// resources shaped like the locked ones (one per table or row) changed,
// else "".
func (s *ServerResult) dataHint(lockfilePath string) string {
	if s.Status != StatusDrift || !review.DataResources(s.Findings, s.Locked, s.Observed) {
		return ""
	}
	return review.UnpinnedHint(s.Name, lockfilePath)
}
