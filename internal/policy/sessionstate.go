package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
)

// What a session's state holds besides its sources: spent approvals, the
// user's grants, and (in a file of its own) the proxies that serve it.

// UsedState is a spent requestState, kept until it expires.
type UsedState struct {
	Nonce   string    `json:"nonce"`
	Expires time.Time `json:"expires"`
}

// SessionGrant is "allow this exact call for the rest of this session": the
// same server, method, name and argument bytes (ArgsDigest), against the
// same locked surface (a re-lock or drift ends it). Only the user's answer
// to mcpsum's own prompt makes one.
type SessionGrant struct {
	Server  string    `json:"server"`
	Method  string    `json:"method"`
	Name    string    `json:"name"`
	Args    string    `json:"args"`
	Surface string    `json:"surface"`
	Granted time.Time `json:"granted"`
}

const (
	maxUsed   = 256
	maxGrants = 64
)

// ErrTooMany is UseState's or Grant's error when the state holds as many as
// it may: refused rather than forgetting one.
var ErrTooMany = errors.New("too many")

// UseState records that the requestState nonce (valid until expires) was
// spent in session sess, under the store's lock, and refuses one spent
// before (ErrStateReplayed) by any proxy of the session, restarted or not.
func (st *Store) UseState(sess Session, nonce string, expires time.Time) error {
	return st.update(sess, false, func(cur *State, now time.Time) error {
		kept := cur.Used[:0]
		for _, u := range cur.Used {
			if u.Nonce == nonce {
				return ErrStateReplayed
			}
			if now.Before(u.Expires) {
				kept = append(kept, u)
			}
		}
		if len(kept) >= maxUsed {
			return fmt.Errorf("%w approvals in flight in this session (%d); retry in a few minutes", ErrTooMany, maxUsed)
		}
		cur.Used = append(kept, UsedState{Nonce: nonce, Expires: expires.UTC()})
		return nil
	})
}

// Grant records g in session sess (a tainted session: grants exist only
// there, and taint reset clears them).
func (st *Store) Grant(sess Session, g SessionGrant) error {
	return st.update(sess, false, func(cur *State, now time.Time) error {
		if cur.Granted(g.Server, g.Method, g.Name, g.Args, g.Surface) {
			return nil
		}
		if len(cur.Grants) >= maxGrants {
			return fmt.Errorf("%w grants in this session (%d); review with mcpsum taint list", ErrTooMany, maxGrants)
		}
		g.Granted = now
		cur.Grants = append(cur.Grants, g)
		return nil
	})
}

// granted records the user's "for the rest of this session" with an
// accepted approval and returns the audit's answer. A grant that cannot be
// recorded leaves this one call allowed (the user approved it) and warns.
func (g *Guard) granted(c *Call, a Answer, forSession bool) string {
	if !forSession {
		return string(a)
	}
	err := g.cfg.Store.Grant(g.cfg.Session, SessionGrant{Server: g.cfg.Server, Method: c.Method, Name: c.Name, Args: c.digest, Surface: g.cfg.Surface})
	if err != nil {
		if g.cfg.Warn != nil {
			g.cfg.Warn("the grant for the rest of the session was not recorded (this call is allowed once): " + err.Error())
		}
		return string(a)
	}
	return "accept-for-session"
}

// Granted reports whether the user allowed this exact call for the session.
func (s *State) Granted(server, method, name, args, surface string) bool {
	for _, g := range s.Grants {
		if g.Server == server && g.Method == method && g.Name == name && g.Args == args && g.Surface == surface {
			return true
		}
	}
	return false
}

// same reports whether two records name one process.
func (c Client) same(o Client) bool { return c.PID == o.PID && c.Start == o.Start && c.Boot == o.Boot }

// The proxies serving a session are listed in STATE/taint/ID.live (JSON:
// pid, start time, boot id of each), so a session with a live proxy is never
// cleaned up, whichever client started it and whether or not that proxy
// wrote the taint.

const maxProxies = 64

func (st *Store) livePath(id string) string { return filepath.Join(st.dir, id+".live") }

func (st *Store) readProxies(id string) []Client {
	b, err := safeio.ReadRegular(st.livePath(id), "taint proxies", maxStateSize)
	if err != nil {
		return nil
	}
	var ps []Client
	if json.Unmarshal(b, &ps) != nil {
		return nil
	}
	return ps
}

// Join records proxy (this process) as serving session sess. Call it before
// Cleanup: from then on the session's state outlives every client until
// this proxy is gone.
func (st *Store) Join(sess Session, proxy Client) error {
	if err := ValidSessionID(sess.ID); err != nil {
		return err
	}
	l, err := st.lock()
	if err != nil {
		return err
	}
	defer l.Unlock()
	ps := []Client{proxy}
	for _, p := range st.readProxies(sess.ID) {
		if !p.same(proxy) && p.Alive() && len(ps) < maxProxies {
			ps = append(ps, p)
		}
	}
	b, _ := json.Marshal(ps)
	if err := statefile.WriteAtomic(st.livePath(sess.ID), b, statefile.WriteOptions{Perm: 0o600}); err != nil {
		return fmt.Errorf("taint state: record this proxy in %s: %w", st.livePath(sess.ID), err)
	}
	return nil
}

// proxiesLive reports whether a proxy recorded for session id still runs.
func (st *Store) proxiesLive(id string) bool {
	for _, p := range st.readProxies(id) {
		if p.Alive() {
			return true
		}
	}
	return false
}

// sweepProxies removes the proxy lists of sessions none of whose proxies
// runs any more (the store's lock held).
func (st *Store) sweepProxies() {
	ents, err := os.ReadDir(st.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".live")
		if !ok || ValidSessionID(id) != nil || st.proxiesLive(id) {
			continue
		}
		if err := os.Remove(st.livePath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return
		}
	}
}
