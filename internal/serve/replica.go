package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
	"github.com/mcpsum/mcpsum/internal/pgstate"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Replicas: several serve processes behind a plain load balancer, any
// request on any replica. What a request changes that another replica
// must see (taint, spent approvals, grants, the approval key) is in the
// shared database. What lives in one process stays there — a legacy
// session's core and server process, a bridged input round of a 2026-07-28
// client held by a core — and a request that continues it is forwarded,
// unchanged, to the replica that holds it: the session id (and the
// requestState tokens a core issues) begin with that replica's id, and the
// database says where it is reached. A forwarded request is never
// forwarded again.

// headerForwarded marks a request one replica forwarded to another.
const headerForwarded = "Mcpsum-Forwarded"

// Replicas is this replica of a serve that shares a database with others.
type Replicas struct {
	id  string // this replica's: 8 hex digits, new each start unless given (--replica-id)
	url string // where the others reach it (http(s)://host:port, or unix:PATH)
	db  *pgstate.DB

	mu    sync.Mutex
	known map[string]*httputil.ReverseProxy // other replicas, by id

	stop  chan struct{}
	once  sync.Once
	given bool // the id was chosen (--replica-id): refuse one in use
}

// newReplicas is this replica, reached at url, with id ("": a random one).
func newReplicas(db *pgstate.DB, url, id string) *Replicas {
	given := id != ""
	if !given {
		b := make([]byte, 4)
		rand.Read(b)
		id = hex.EncodeToString(b)
	}
	return &Replicas{id: id, url: url, db: db, known: map[string]*httputil.ReverseProxy{}, stop: make(chan struct{}), given: given}
}

// CheckReplicaID checks a --replica-id: 8 lowercase hex digits.
func CheckReplicaID(id string) error {
	if len(id) != 8 || strings.ToLower(id) != id || !isHex(id) {
		return &UsageError{Msg: fmt.Sprintf("--replica-id %s: want 8 lowercase hex digits (e.g. 0a000001), a different one for each replica", termtext.Quoted(id, 40))}
	}
	return nil
}

// ID is this replica's id.
func (rs *Replicas) ID() string { return rs.id }

// start registers this replica and keeps its record fresh until stopped.
func (rs *Replicas) start() error {
	if rs == nil {
		return nil
	}
	if rs.given {
		other, err := rs.db.ReplicaInUse(rs.id, rs.url)
		if err != nil {
			return err
		}
		if other != "" {
			return fmt.Errorf("replica id %s is in use by the replica at %s (it renewed its record in the last 90 seconds): give each replica its own --replica-id", rs.id, termtext.Quoted(other, 200))
		}
	}
	if err := rs.db.Register(rs.id, rs.url); err != nil {
		return err
	}
	go func() {
		t := time.NewTicker(30 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-rs.stop:
				rs.db.Unregister(rs.id)
				return
			case <-t.C:
				rs.db.Register(rs.id, rs.url)
			}
		}
	}()
	return nil
}

func (rs *Replicas) close() {
	if rs != nil {
		rs.once.Do(func() { close(rs.stop) })
	}
}

// sessionPrefix begins the ids of this replica's sessions ("" alone).
func (rs *Replicas) sessionPrefix() string {
	if rs == nil {
		return ""
	}
	return rs.id + "-"
}

// tokenPrefix begins the requestState tokens of core n of this replica.
func (rs *Replicas) tokenPrefix(n uint64) string {
	id := "r"
	if rs != nil {
		id = rs.id
	}
	return id + "." + hex.EncodeToString([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}) + "."
}

// owner is the replica id a session id or token names ("" none).
func owner(s string) string {
	if len(s) > 9 && (s[8] == '-' || s[8] == '.') && isHex(s[:8]) {
		return s[:8]
	}
	return ""
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

// proxyTo returns the forwarder to replica id; nil when it is not known.
func (rs *Replicas) proxyTo(id string) *httputil.ReverseProxy {
	rs.mu.Lock()
	rp := rs.known[id]
	rs.mu.Unlock()
	if rp != nil {
		return rp
	}
	u, err := rs.db.Replica(id)
	if err != nil || u == "" {
		return nil
	}
	target, tr := replicaTarget(u)
	if target == nil {
		return nil
	}
	rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Header.Set(headerForwarded, "1")
		},
		Transport:     tr,
		FlushInterval: -1, // server-sent events go on as they come
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "Not Found: the replica that holds this session cannot be reached; begin a new session", http.StatusNotFound)
		},
	}
	rs.mu.Lock()
	rs.known[id] = rp
	rs.mu.Unlock()
	return rp
}

// replicaTarget is the URL and transport of a replica reached at u.
func replicaTarget(u string) (*url.URL, http.RoundTripper) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if path, ok := strings.CutPrefix(u, "unix:"); ok {
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		}
		target, _ := url.Parse("http://localhost")
		return target, tr
	}
	target, err := url.Parse(u)
	if err != nil || (target.Scheme != "http" && target.Scheme != "https") {
		return nil, nil
	}
	return target, tr
}

// forward serves a request that continues what another replica holds (a
// legacy session there) by forwarding it; false when it is this
// replica's to serve.
func (s *Server) forward(w http.ResponseWriter, r *http.Request) bool {
	return s.forwardOwner(w, r, owner(r.Header.Get(mcphttp.HeaderSessionID)))
}

// forwardOwner forwards r to replica id when that is another replica.
func (s *Server) forwardOwner(w http.ResponseWriter, r *http.Request, id string) bool {
	rs := s.cfg.Replicas
	if rs == nil || id == "" || id == rs.id || r.Header.Get(headerForwarded) != "" {
		return false
	}
	rp := rs.proxyTo(id)
	if rp == nil {
		http.Error(w, "Not Found: no such session (its replica is gone); begin a new one", http.StatusNotFound)
		return true
	}
	rp.ServeHTTP(w, r)
	return true
}
