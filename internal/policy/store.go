package policy

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
)

// Store is the taint state of every client session of this user: one JSON
// file per session under STATE/taint, shared by all proxies. Writes happen
// under an exclusive flock(2) on that directory and replace a file
// atomically; reads take no lock (a reader sees a whole old or new file).
// Anything that cannot be read counts as tainted.
type Store struct {
	state string // the state directory
	dir   string // STATE/taint
	docs  Docs   // where the session documents live (nil: the files under dir)
	// LockWait bounds the wait for the state lock (0: 10s). A holder that
	// died never blocks (the kernel drops its flock); this only guards
	// against a live holder that is stuck.
	LockWait time.Duration
	// Retention is how long the state of a session whose clients are all
	// gone is kept for review before Cleanup removes it (0: one hour).
	Retention time.Duration
	now       func() time.Time
}

// Source is one thing that tainted a session.
type Source struct {
	Server string    `json:"server"` // the server's name in mcp.lock
	Label  string    `json:"source"` // the policy label that matched: a tool name, resources:* or prompts:*
	First  time.Time `json:"first"`
	Last   time.Time `json:"last"`
	Count  int       `json:"count"`
}

// State is a session's taint state as read from disk.
type State struct {
	Session string   `json:"session"`
	Clients []Client `json:"clients"`
	Sources []Source `json:"sources"`
	// Used are the requestState approvals already spent, until they
	// expire: single use across every proxy of the session and restarts.
	Used []UsedState `json:"used,omitempty"`
	// Grants are the calls the user allowed for the rest of the session.
	Grants []SessionGrant `json:"grants,omitempty"`
	// Epoch names this taint, from the first source on: random, new after
	// every reset. Approvals are bound to it (Binding.Taint), so one spent
	// before a reset, whose record of use the reset removed, is refused.
	Epoch string `json:"epoch,omitempty"`
	// Problem is set when the state could not be read or parsed: the
	// session then counts as tainted (fail closed).
	Problem string `json:"-"`
}

// Tainted reports whether sink calls need approval.
func (s *State) Tainted() bool { return s.Problem != "" || len(s.Sources) > 0 }

// Latest is the most recent source (nil for a state that only has a Problem).
func (s *State) Latest() *Source {
	var l *Source
	for i := range s.Sources {
		if l == nil || s.Sources[i].Last.After(l.Last) {
			l = &s.Sources[i]
		}
	}
	return l
}

const (
	maxSources   = 64
	maxClients   = 16
	maxStateSize = 1 << 20
)

// NewStore returns the store under the state directory dir. Nothing is
// created until a session is tainted.
func NewStore(dir string) *Store {
	return &Store{state: dir, dir: filepath.Join(dir, "taint"), now: time.Now}
}

// NewSharedStore returns a store whose session documents live in docs (a
// database the replicas of `mcpsum serve` share) instead of files: the
// same rules (Check, Mark, UseState, Grant) over another place. List,
// Reset, Cleanup and Join work on the files under dir only.
func NewSharedStore(dir string, docs Docs) *Store {
	st := NewStore(dir)
	st.docs = docs
	return st
}

// Docs holds the session state documents a Store reads and changes, one
// JSON document per session id: the Store's own files (the default, one
// machine), or a database several machines share (internal/pgstate).
type Docs interface {
	// Read returns session id's document, an error matching fs.ErrNotExist
	// when it has none.
	Read(id string) ([]byte, error)
	// Change replaces session id's document under a lock that excludes
	// every other Change of it wherever the Docs are shared, and returns
	// once the new document is stored: fn gets the current one, or the
	// error reading it (matching fs.ErrNotExist when there is none), and
	// returns the new one; an error from fn changes nothing.
	Change(id string, fn func(cur []byte, err error) ([]byte, error)) error
	// Where names session id's document in messages (a file, a row).
	Where(id string) string
}

// KeyDocs are Docs that also keep the approval key, so that every replica
// sharing them signs and checks 2026-07-28 approvals with the same key.
type KeyDocs interface {
	Docs
	// ApprovalKey returns the shared key (32 bytes), made on first use.
	ApprovalKey() ([]byte, error)
}

// ApprovalKey is the key approvals are signed with: the shared Docs' key,
// or the one in the state directory (LoadKey).
func (st *Store) ApprovalKey() ([]byte, error) {
	if kd, ok := st.docs.(KeyDocs); ok {
		return kd.ApprovalKey()
	}
	return LoadKey(st.state)
}

func (st *Store) store() Docs {
	if st.docs != nil {
		return st.docs
	}
	return fileDocs{st}
}

// fileDocs are the session files under STATE/taint, changed under the
// directory's flock(2) and replaced atomically.
type fileDocs struct{ st *Store }

func (f fileDocs) Where(id string) string { return f.st.path(id) }

func (f fileDocs) Read(id string) ([]byte, error) {
	return safeio.ReadRegular(f.st.path(id), "taint state", maxStateSize)
}

func (f fileDocs) Change(id string, fn func(cur []byte, err error) ([]byte, error)) error {
	l, err := f.st.lock()
	if err != nil {
		return err
	}
	defer l.Unlock()
	b, err := fn(f.Read(id))
	if err != nil {
		return err
	}
	if err := statefile.WriteAtomic(f.st.path(id), b, statefile.WriteOptions{Perm: 0o600}); err != nil {
		return fmt.Errorf("taint state: write %s: %w", f.st.path(id), err)
	}
	return nil
}

// Dir is the directory holding the session files.
func (st *Store) Dir() string { return st.dir }

func (st *Store) path(id string) string { return filepath.Join(st.dir, id+".json") }

func (st *Store) lock() (*statefile.Lock, error) {
	if err := statefile.MkdirPrivate(st.dir); err != nil {
		return nil, fmt.Errorf("taint state: %w", err)
	}
	wait := st.LockWait
	if wait <= 0 {
		wait = 10 * time.Second
	}
	l, err := statefile.LockTimeout(st.dir, wait)
	if err != nil {
		return nil, fmt.Errorf("taint state: %w", err)
	}
	return l, nil
}

// Check reads a session's state. It never fails: a state that cannot be
// read or parsed comes back with Problem set, which counts as tainted. A
// missing file is an untainted session.
func (st *Store) Check(id string) State {
	d := st.store()
	b, err := d.Read(id)
	return checkDoc(d, id, b, err)
}

// checkDoc is Check of a document read (b, err) from d.
func checkDoc(d Docs, id string, b []byte, err error) State {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return State{Session: id}
	case err != nil:
		return State{Session: id, Problem: fmt.Sprintf("the taint state %s cannot be read (%v)", d.Where(id), err)}
	}
	s, err := parseState(id, b)
	if err != nil {
		return State{Session: id, Problem: fmt.Sprintf("the taint state %s is corrupt (%v)", d.Where(id), err)}
	}
	return s
}

func parseState(id string, b []byte) (State, error) {
	var s State
	if len(b) > maxStateSize {
		return s, fmt.Errorf("%d bytes, more than %d", len(b), maxStateSize)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return s, err
	}
	if d.More() {
		return s, errors.New("data after the state object")
	}
	if s.Session != id {
		return s, fmt.Errorf("it names session %q", truncate(s.Session, 80))
	}
	if len(s.Sources) == 0 {
		return s, errors.New("it lists no source")
	}
	return s, nil
}

// Mark records that src tainted session sess. It returns only after the
// state is on disk, so the caller may then deliver the result.
func (st *Store) Mark(sess Session, server, label string) error {
	return st.update(sess, true, func(cur *State, now time.Time) error {
		found := false
		for i := range cur.Sources {
			if s := &cur.Sources[i]; s.Server == server && s.Label == label {
				s.Last, s.Count, found = now, s.Count+1, true
			}
		}
		if !found {
			if len(cur.Sources) >= maxSources {
				sort.Slice(cur.Sources, func(i, j int) bool { return cur.Sources[i].Last.After(cur.Sources[j].Last) })
				cur.Sources = cur.Sources[:maxSources-1]
			}
			cur.Sources = append(cur.Sources, Source{Server: server, Label: label, First: now, Last: now, Count: 1})
		}
		return nil
	})
}

// update changes a session's state under the store's lock and writes it
// before it returns. An unreadable state is kept tainted with a placeholder
// source when mark is set (a source is being recorded anyway); otherwise it
// is an error: what it held (used approvals, grants) cannot be trusted.
func (st *Store) update(sess Session, mark bool, fn func(cur *State, now time.Time) error) error {
	d := st.store()
	return d.Change(sess.ID, func(doc []byte, err error) ([]byte, error) {
		return st.updateDoc(sess, mark, checkDoc(d, sess.ID, doc, err), fn)
	})
}

// updateDoc is update's change of the state cur, returned as its new
// document.
func (st *Store) updateDoc(sess Session, mark bool, cur State, fn func(cur *State, now time.Time) error) ([]byte, error) {
	now := st.now().UTC()
	if cur.Problem != "" {
		if !mark {
			return nil, errors.New(cur.Problem)
		}
		// Keep the session tainted and say so: what tainted it before is lost.
		cur = State{Session: sess.ID, Sources: []Source{{Label: "(unreadable earlier state)", First: now, Last: now, Count: 1}}}
	}
	cur.Session = sess.ID
	if err := fn(&cur, now); err != nil {
		return nil, err
	}
	if !mark && len(cur.Sources) == 0 {
		return nil, errors.New("the session is not tainted")
	}
	if cur.Epoch == "" {
		e := make([]byte, 12)
		rand.Read(e)
		cur.Epoch = base64.RawURLEncoding.EncodeToString(e)
	}
	if sess.Client.PID > 0 {
		known := false
		for _, c := range cur.Clients {
			known = known || c.same(sess.Client)
		}
		if !known {
			if len(cur.Clients) >= maxClients {
				cur.Clients = cur.Clients[1:]
			}
			cur.Clients = append(cur.Clients, sess.Client)
		}
	}
	b, err := json.MarshalIndent(cur, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Listed is one session as taint list shows it.
type Listed struct {
	State
	Live     bool      // one of its clients still runs
	Modified time.Time // when its file last changed
}

// List returns every session with a state file, most recently changed first.
// An unreadable file is listed with Problem set (it counts as tainted).
func (st *Store) List() ([]Listed, error) {
	ents, err := os.ReadDir(st.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("taint state: %w", err)
	}
	var out []Listed
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || strings.HasPrefix(e.Name(), ".") || ValidSessionID(id) != nil {
			continue
		}
		var mod time.Time
		if info, err := e.Info(); err == nil {
			mod = info.ModTime()
		}
		s := st.Check(id)
		ls := Listed{State: s, Modified: mod, Live: st.proxiesLive(id)}
		for _, c := range s.Clients {
			ls.Live = ls.Live || c.Alive()
		}
		out = append(out, ls)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Modified.After(out[j].Modified) })
	return out, nil
}

// ErrNoSession is returned by Reset for a session without state.
var ErrNoSession = errors.New("no such tainted session")

// Reset clears one session's taint.
func (st *Store) Reset(id string) error {
	if err := ValidSessionID(id); err != nil {
		return err
	}
	l, err := st.lock()
	if err != nil {
		return err
	}
	defer l.Unlock()
	err = os.Remove(st.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %q", ErrNoSession, id)
	}
	if err != nil {
		return fmt.Errorf("taint state: %w", err)
	}
	return nil
}

// ResetAll clears every session and returns their ids.
func (st *Store) ResetAll() ([]string, error) {
	return st.removeWhere(func(Listed) bool { return true })
}

// Cleanup removes the state of sessions whose clients and proxies are all
// gone and whose state has not changed for Retention: a session with any
// live proxy (Join) is never cleaned up. Unreadable states stay (they need a
// person: taint reset).
func (st *Store) Cleanup() ([]string, error) {
	keep := st.Retention
	if keep <= 0 {
		keep = time.Hour
	}
	now := st.now()
	return st.removeWhere(func(l Listed) bool {
		return l.Problem == "" && !l.Live && now.Sub(l.Modified) > keep
	})
}

func (st *Store) removeWhere(pred func(Listed) bool) ([]string, error) {
	if _, err := os.Stat(st.dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	l, err := st.lock()
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	all, err := st.List()
	if err != nil {
		return nil, err
	}
	var gone []string
	for _, s := range all {
		if !pred(s) {
			continue
		}
		if err := os.Remove(st.path(s.Session)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return gone, fmt.Errorf("taint state: %w", err)
		}
		gone = append(gone, s.Session)
	}
	st.sweepProxies()
	return gone, nil
}
