package verify

import (
	"errors"
	"fmt"
	"io"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// Offline is `verify --offline` for one lockfile: it checks that the file
// parses and matches its own digests and, when logConfig names a
// transparency log, that each stored log proof (logProof) proves its
// entry's record under the log's key, with no network and no server
// started. It writes a line per outcome to w ("ok", "FAIL", "note") and
// returns the error that decides (nil when everything checks); an error of
// logConfig is returned as it is, after the file's own line.
func Offline(w io.Writer, path string, logConfig func() (*sumdb.Config, error)) error {
	q := termtext.ShellArg(path)
	f, err := locker.Load(path)
	if err != nil {
		fmt.Fprintf(w, "%-6s %s: %s\n", offlineLabel(err), q, hint.Lines(err, "       "))
		return err
	}
	fmt.Fprintf(w, "ok     %s: %s, every digest matches (offline: no server was started)\n", q, plural(len(f.Servers), "server"))
	cfg, err := logConfig()
	if err != nil {
		return err
	}
	checked, notes, err := launch.CheckLogProofs(cfg, f)
	for _, n := range notes {
		fmt.Fprintf(w, "note   %s: %s\n", q, n)
	}
	if err != nil {
		fmt.Fprintf(w, "%-6s %s: %s\n", offlineLabel(err), q, hint.Lines(err, "       "))
		return err
	}
	if checked > 0 {
		fmt.Fprintf(w, "ok     %s: %d transparency-log proofs check against the log's key (offline)\n", q, checked)
	}
	return nil
}

// offlineLabel is FAIL for a verdict on the file (a digest that does not
// match, a proof the log's key disproves) and ERROR for a file that could
// not be checked (missing, unreadable, malformed), as verify labels a
// server it could not check.
func offlineLabel(err error) string {
	if errors.As(err, new(*lockfile.IntegrityError)) || sumdb.IsSecurity(err) {
		return "FAIL"
	}
	return "ERROR"
}
