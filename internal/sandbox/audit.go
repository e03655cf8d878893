package sandbox

import (
	"encoding/json"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/statefile"
)

// auditRecord is one line of the audit log: one per egress connection, or
// one summary of repeated refusals (Count > 0) or of connections past the
// session's cap (Decision "capped").
type auditRecord struct {
	Time       string `json:"time"`
	Kind       string `json:"kind"` // always "egress"
	Server     string `json:"server"`
	Decision   string `json:"decision"` // "allow", "deny", "fail" (allowed but every dial failed), "capped"
	Host       string `json:"host"`
	Port       uint16 `json:"port,omitempty"`
	IP         string `json:"ip,omitempty"`
	BytesUp    int64  `json:"bytes_up"`   // sandbox -> remote
	BytesDown  int64  `json:"bytes_down"` // remote -> sandbox
	DurationMS int64  `json:"duration_ms"`
	Reason     string `json:"reason,omitempty"`
	// A summary line: Count more connections like this one, the first at
	// First and the last at Last, were refused (or, for "capped", not logged).
	Count int64  `json:"count,omitempty"`
	First string `json:"first,omitempty"`
	Last  string `json:"last,omitempty"`
}

const (
	// auditWindow: a refusal identical (decision, host, port, reason) to one
	// logged less than this ago is counted, not written; the count is written
	// as one summary line when the window has passed or the log closes.
	auditWindow = time.Minute
	// auditSessionCap bounds what one sandbox start writes; past it,
	// connections are only counted, and the counts are written at close.
	auditSessionCap = 4 << 20
	// auditMaxKeys bounds the refusals tracked for aggregation.
	auditMaxKeys = 1024
)

type refusalKey struct {
	decision, host, reason string
	port                   uint16
}

type refusalCount struct {
	logged      time.Time // when the last line for this key was written
	count       int64     // refusals since then, not yet written
	first, last time.Time
	rec         auditRecord
}

// auditLog appends JSON lines, one write(2) per line (O_APPEND). Repeated
// refusals are aggregated and one session's lines are capped (a server
// looping refused CONNECTs must not fill the disk), while every connection
// is still accounted for.
type auditLog struct {
	mu      sync.Mutex
	f       *os.File
	now     func() time.Time
	written int64
	refused map[refusalKey]*refusalCount
	capped  map[string]*refusalCount // by decision, past the cap
}

func openAudit(path string) (*auditLog, error) {
	f, err := statefile.OpenAppend(path)
	if err != nil {
		return nil, hint.Errorf("check that its folder exists and is writable", "sandbox audit log %s: %w", path, err)
	}
	return &auditLog{f: f, now: time.Now, refused: map[refusalKey]*refusalCount{}, capped: map[string]*refusalCount{}}, nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func (a *auditLog) write(r auditRecord) {
	if a == nil {
		return
	}
	if len(r.Host) > 256 {
		r.Host = r.Host[:256] + "..."
	}
	if len(r.Reason) > 512 {
		r.Reason = r.Reason[:512] + "..."
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	r.Time, r.Kind = stamp(now), "egress"
	a.flushDue(now, false)
	if r.Decision != "allow" {
		k := refusalKey{r.Decision, r.Host, r.Reason, r.Port}
		if c := a.refused[k]; c != nil && now.Sub(c.logged) < auditWindow {
			if c.count == 0 {
				c.first = now
			}
			c.count++
			c.last = now
			return
		}
		if len(a.refused) < auditMaxKeys {
			a.refused[k] = &refusalCount{logged: now, rec: r}
		}
	}
	a.emit(r, now)
}

// emit writes r, or counts it once the session's cap is reached.
func (a *auditLog) emit(r auditRecord, now time.Time) {
	line, err := json.Marshal(r)
	if err != nil {
		return
	}
	if a.written+int64(len(line))+1 > auditSessionCap {
		c := a.capped[r.Decision]
		if c == nil {
			c = &refusalCount{first: now, rec: auditRecord{Kind: "egress", Server: r.Server, Decision: "capped",
				Reason: fmt.Sprintf("the audit log's cap of %d bytes per sandbox start was reached; these %s connections are counted, not listed", auditSessionCap, r.Decision)}}
			a.capped[r.Decision] = c
		}
		c.count += max(r.Count, 1)
		c.last = now
		return
	}
	a.written += int64(len(line)) + 1
	_, _ = a.f.Write(append(line, '\n'))
}

// flushDue writes the summaries of refusals whose window has passed (all of
// them when final), restarting their windows.
func (a *auditLog) flushDue(now time.Time, final bool) {
	for k, c := range a.refused {
		if !final && now.Sub(c.logged) < auditWindow {
			continue
		}
		if c.count > 0 {
			r := c.rec
			r.Time, r.Count, r.First, r.Last = stamp(now), c.count, stamp(c.first), stamp(c.last)
			r.Reason = "repeated: " + r.Reason
			a.emit(r, now)
			c.count, c.logged = 0, now
			continue
		}
		if !final {
			delete(a.refused, k)
		}
	}
}

func (a *auditLog) Close() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	a.flushDue(now, true)
	for _, d := range []string{"allow", "deny", "fail"} {
		if c := a.capped[d]; c != nil {
			r := c.rec
			r.Time, r.Count, r.First, r.Last = stamp(now), c.count, stamp(c.first), stamp(c.last)
			line, _ := json.Marshal(r) // always written: the count keeps the log truthful
			_, _ = a.f.Write(append(line, '\n'))
		}
	}
	return a.f.Close()
}
