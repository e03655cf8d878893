package serve

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpsum/mcpsum/internal/pgstate"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/taintguard"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// State is where serve keeps what outlives a request: the taint state,
// spent approvals and grants, and the approval key (Shared: in the state
// folder on one machine, or in PostgreSQL for replicas, with the registry
// of where each replica is reached). The audit log stays in the state
// folder of each replica.
type State struct {
	Shared *taintguard.Shared
	db     *pgstate.DB // nil: the state folder
}

// CheckState checks --state before serve starts anything: a URL the
// PostgreSQL client cannot use as written is a usage error.
func CheckState(spec string) error {
	switch {
	case spec == "":
	case strings.HasPrefix(spec, "postgres://"), strings.HasPrefix(spec, "postgresql://"):
		if err := pgstate.CheckURL(spec); err != nil {
			return &UsageError{err.Error()} // pgwire cleans what it quotes; the name is URL-escaped
		}
	default:
		return &UsageError{fmt.Sprintf("--state %s: give postgres://... or leave it out for the state folder", termtext.Quoted(spec, 100))}
	}
	return nil
}

// OpenState opens spec: "" is the state folder; postgres://... a database
// the replicas share.
func OpenState(ctx context.Context, spec string, warn func(string)) (*State, error) {
	dir, err := statefile.Dir()
	if err != nil {
		return nil, err
	}
	if err := CheckState(spec); err != nil {
		return nil, err
	}
	st := &State{}
	if spec != "" {
		if st.db, err = pgstate.Open(ctx, spec); err != nil {
			return nil, err
		}
	}
	var docs *pgstate.DB
	if st.db != nil {
		docs = st.db
	}
	if docs != nil {
		st.Shared, err = taintguard.OpenShared(dir, docs, warn)
	} else {
		st.Shared, err = taintguard.OpenShared(dir, nil, warn)
	}
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("the taint state: %w", err)
	}
	return st, nil
}

// Close closes the audit log and the database.
func (st *State) Close() {
	if st.Shared != nil {
		st.Shared.Close()
	}
	if st.db != nil {
		st.db.Close()
	}
}

// Replicas is this replica among the others sharing the database, reached
// at url, with id (--replica-id; "": a random one at each start); nil for
// the state folder (one replica).
func (st *State) Replicas(url, id string) *Replicas {
	if st.db == nil {
		return nil
	}
	return newReplicas(st.db, url, id)
}
