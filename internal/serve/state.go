package serve

import (
	"fmt"
	"strings"

	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/taintguard"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// OpenState opens where taint state, spent approvals and grants live:
// spec "" is the state folder (one machine); postgres://... a database
// the replicas share. The audit log stays in the state folder.
func OpenState(spec string, warn func(string)) (*taintguard.Shared, func(), error) {
	dir, err := statefile.Dir()
	if err != nil {
		return nil, nil, err
	}
	switch {
	case spec == "":
		sh, err := taintguard.OpenShared(dir, nil, warn)
		if err != nil {
			return nil, nil, fmt.Errorf("the taint state: %w", err)
		}
		return sh, sh.Close, nil
	case strings.HasPrefix(spec, "postgres://"), strings.HasPrefix(spec, "postgresql://"):
		return openPostgres(spec, dir, warn)
	}
	return nil, nil, &UsageError{fmt.Sprintf("--state %s: give postgres://... or leave it out for the state folder", termtext.Quoted(spec, 100))}
}
