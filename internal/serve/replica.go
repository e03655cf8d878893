package serve

import (
	"net/http"

	"github.com/mcpsum/mcpsum/internal/taintguard"
)

// Replicas are the other replicas of this serve (nil: it is the only one).
type Replicas struct{}

func (rs *Replicas) sessionPrefix() string { return "" }

// forward serves a request for a session another replica holds; false
// when it is this replica's to serve.
func (s *Server) forward(w http.ResponseWriter, r *http.Request) bool { return false }

func openPostgres(spec, dir string, warn func(string)) (*taintguard.Shared, func(), error) {
	return nil, nil, &UsageError{"--state postgres:// is not built yet"}
}
