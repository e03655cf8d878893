package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/taintguard"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Config configures a Server.
type Config struct {
	Lockfile string         // the lockfile's path (messages, the sandbox)
	File     *lockfile.File // its contents, already integrity-checked
	// Pin configures how each server is started and checked (timeouts,
	// the line limit, the sandbox's lockfile).
	Pin launch.Options
	// Token is the bearer token every caller presents.
	Token string
	// Access says which Host and Origin a request may carry.
	Access Access
	// State is the taint state every guarded entry shares (nil: none of
	// them has a taint policy).
	State *taintguard.Shared
	// Approval bounds how long an approval question stays open (0: 10 min).
	Approval time.Duration
	// Idle is how long a session, or a core serving 2026-07-28 requests,
	// may go without a request before it is ended (0: DefaultIdle).
	Idle time.Duration
	// MaxBody caps a request's body (0: DefaultMaxBody).
	MaxBody int64
	// Stderr is the log: sessions begun and ended, refusals (never a
	// token), the servers' stderr (escaped). nil discards it.
	Stderr io.Writer
	// Replicas, when set, lets this server answer for sessions other
	// replicas hold, by forwarding to them (replica.go). nil: one replica.
	Replicas *Replicas
}

// Defaults.
const (
	DefaultIdle    = 10 * time.Minute
	DefaultMaxBody = 8 << 20
)

// Server serves every locked server of a lockfile at /servers/NAME/mcp
// over Streamable HTTP, to clients of both eras, each behind the proxy
// core (internal/proxy) with this package's downstream.
type Server struct {
	cfg     Config
	entries map[string]*entry
	logMu   sync.Mutex

	mu       sync.Mutex
	sessions map[string]*session // legacy sessions by Mcp-Session-Id
	pools    map[poolKey]*pool   // 2026-07-28 cores by server and identity
	closed   bool

	stop  chan struct{}
	wg    sync.WaitGroup
	coreN atomic.Uint64 // cores started (their requestState prefixes)
}

// New prepares a Server: each remote entry's credentials are read now (a
// missing variable or sign-in fails here, not at a client's first call).
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.File == nil || len(cfg.File.Servers) == 0 {
		return nil, fmt.Errorf("%s locks no server: lock one first ('mcpsum lock --lockfile %s --name NAME -- COMMAND')", cfg.Lockfile, termtext.ShellArg(cfg.Lockfile))
	}
	if len(cfg.Token) < minToken {
		return nil, errors.New("serve: the bearer token is too short")
	}
	if cfg.Idle <= 0 {
		cfg.Idle = DefaultIdle
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Approval <= 0 {
		cfg.Approval = 10 * time.Minute
	}
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	s := &Server{cfg: cfg, entries: map[string]*entry{}, sessions: map[string]*session{}, pools: map[poolKey]*pool{}, stop: make(chan struct{})}
	for name, e := range cfg.File.Servers {
		en, err := s.newEntry(ctx, name, e)
		if err != nil {
			return nil, err
		}
		s.entries[name] = en
	}
	if err := cfg.Replicas.start(); err != nil {
		return nil, err
	}
	s.wg.Add(1)
	go s.reap()
	return s, nil
}

// Names are the locked servers, sorted.
func (s *Server) Names() []string {
	var out []string
	for n := range s.entries {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Path is where server name is served.
func Path(name string) string { return "/servers/" + name + "/mcp" }

func (s *Server) logf(format string, a ...any) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.cfg.Stderr, "mcpsum serve: "+format+"\n", a...)
}

// ServeHTTP checks who calls (access.go), finds the server, and serves the
// request in its era.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.admit(w, r) {
		return
	}
	name, ok := strings.CutPrefix(r.URL.Path, "/servers/")
	name, ok2 := strings.CutSuffix(name, "/mcp")
	e := s.entries[name]
	if !ok || !ok2 || e == nil || strings.Contains(name, "/") {
		http.Error(w, "Not Found: no locked server is served at this path (servers are at /servers/NAME/mcp)", http.StatusNotFound)
		return
	}
	if s.forward(w, r) {
		return // another replica holds the session (replica.go)
	}
	switch r.Method {
	case http.MethodPost:
		s.post(w, r, e)
	case http.MethodGet:
		s.get(w, r, e)
	case http.MethodDelete:
		s.delete(w, r, e)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// Close ends every session and core: each stops its server (as a proxy
// does when its client leaves) and Close waits for them, at most grace
// more than their own bounds.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.stop)
	s.cfg.Replicas.close()
	var cores []*core
	for _, ss := range s.sessions {
		cores = append(cores, ss.core)
	}
	for _, p := range s.pools {
		cores = append(cores, p.all()...)
	}
	s.mu.Unlock()
	for _, c := range cores {
		c.end()
	}
	for _, c := range cores {
		<-c.done
	}
	s.wg.Wait()
}

// reap ends sessions and cores idle longer than cfg.Idle.
func (s *Server) reap() {
	defer s.wg.Done()
	tick := time.NewTicker(min(s.cfg.Idle/4, 30*time.Second))
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
		now := time.Now()
		s.mu.Lock()
		var idle []*core
		for id, ss := range s.sessions {
			if ss.core.idleSince(now) > s.cfg.Idle {
				delete(s.sessions, id)
				idle = append(idle, ss.core)
			}
		}
		for k, p := range s.pools {
			idle = append(idle, p.reap(now, s.cfg.Idle)...)
			if p.empty() {
				delete(s.pools, k)
			}
		}
		s.mu.Unlock()
		for _, c := range idle {
			s.logf("%s: idle for %s: ended", c.label, s.cfg.Idle)
			c.end()
		}
	}
}
