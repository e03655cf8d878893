package policy

import (
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
)

// EnvSession names the variable that overrides the client session: every
// proxy started with the same value shares one taint state.
const EnvSession = "MCPSUM_SESSION"

// Client is a process that started proxies: the MCP client. Its pid with its
// start time (clock ticks since boot) and the boot id tell it apart from a
// later process that reuses the pid.
type Client struct {
	PID     int    `json:"pid"`
	Start   uint64 `json:"start"`
	Boot    string `json:"boot"`
	Command string `json:"command"`
}

// Session is the client session a proxy belongs to.
type Session struct {
	ID     string // file name of its state; shown by taint list, typed to taint reset
	Client Client // the client process (the proxy's parent)
	Named  bool   // ID came from MCPSUM_SESSION
	// Proxy is this process, recorded by Store.Join so the session is not
	// cleaned up while it runs (zero when it cannot be read).
	Proxy Client
}

// maxCommand bounds the client command line kept in the state.
const maxCommand = 512

// CurrentSession is the session of this process: its parent (the client
// that started the proxy), or the session named by MCPSUM_SESSION.
func CurrentSession() (Session, error) {
	s, err := currentSession()
	if err == nil {
		s.Proxy, _ = ProcessClient(os.Getpid())
	}
	return s, err
}

func currentSession() (Session, error) {
	c, cerr := ProcessClient(os.Getppid())
	if name, ok := os.LookupEnv(EnvSession); ok {
		if err := ValidSessionID(name); err != nil {
			return Session{}, fmt.Errorf("%s: %w", EnvSession, err)
		}
		// The parent is recorded to tell whether the named session is still
		// in use; a client we cannot read is simply not recorded.
		if cerr != nil {
			c = Client{}
		}
		return Session{ID: name, Client: c, Named: true}, nil
	}
	if cerr != nil {
		return Session{}, hint.Errorf("set "+EnvSession+"=NAME to name it", "identify the client session: %w", cerr)
	}
	return Session{ID: fmt.Sprintf("%d-%d", c.PID, c.Start), Client: c}, nil
}

// ValidSessionID checks a session id: 1-64 characters of A-Z a-z 0-9 . _ -,
// not starting with a dot (it names a file in the state directory).
func ValidSessionID(id string) error {
	if id == "" || len(id) > 64 || id[0] == '.' {
		return fmt.Errorf("session id %q must be 1-64 characters of A-Z a-z 0-9 . _ - and not start with a dot", truncate(id, 80))
	}
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
		default:
			return fmt.Errorf("session id %q must be 1-64 characters of A-Z a-z 0-9 . _ - and not start with a dot", truncate(id, 80))
		}
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
