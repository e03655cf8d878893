package sumlog

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"golang.org/x/mod/sumdb/note"
)

// Files of a log folder.
const (
	KeyFile      = "log.key"        // the signing key (0600)
	VerifierFile = "log.vkey"       // the verifier key, for MCPSUMDB
	TilesDir     = "tiles"          // the POSIX driver's root: checkpoint, tile/…, lookup/…
	PolicyFile   = "witness-policy" // the witnesses every checkpoint needs (once add was given one)
)

// Init makes a new log folder: a signing key for origin (private, 0600)
// and its verifier key, which it returns in signed-note form. The log's
// checkpoint and tiles go to D/tiles.
func Init(dir, origin string) (string, error) {
	return InitIn(context.Background(), dir, origin, Options{})
}

// InitIn is Init with the log's checkpoint and tiles in o.Storage (which
// must not hold a log yet); the folder records it.
func InitIn(ctx context.Context, dir, origin string, o Options) (string, error) {
	if origin == "" || strings.ContainsAny(origin, " \t\n+") {
		return "", fmt.Errorf("origin %q: want a name without spaces or '+', e.g. log.example.com/mcp", origin)
	}
	s, err := ParseStorage(o.Storage)
	if err != nil {
		return "", err
	}
	if _, err := os.Lstat(filepath.Join(dir, KeyFile)); err == nil {
		return "", hint.Errorf("use another --dir", "%s already holds a log (%s exists): a log keeps its key for life", dir, KeyFile)
	}
	if s.Kind != "posix" || s.Path != "" {
		st, err := s.open(ctx, dir, o)
		if err != nil {
			return "", err
		}
		_, err = st.read(ctx, "checkpoint")
		st.close()
		switch {
		case err == nil:
			return "", hint.Errorf("give each log a storage of its own", "%s already holds a log (it has a checkpoint)", s)
		case !errors.Is(err, fs.ErrNotExist):
			return "", err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	skey, vkey, err := note.GenerateKey(rand.Reader, origin)
	if err != nil {
		return "", err
	}
	err = statefile.PublishExclusive(filepath.Join(dir, KeyFile), []byte(skey+"\n"), 0o600)
	if errors.Is(err, fs.ErrExist) {
		return "", hint.Errorf("use another --dir", "%s already holds a log (%s exists): a log keeps its key for life", dir, KeyFile)
	}
	if err != nil {
		return "", err
	}
	if err := statefile.WriteAtomic(filepath.Join(dir, VerifierFile), []byte(vkey+"\n"), statefile.WriteOptions{Perm: 0o644, Sync: true}); err != nil {
		return "", err
	}
	if o.Storage != "" {
		if err := recordStorage(dir, s); err != nil {
			return "", err
		}
	}
	return vkey, nil
}

// readKey reads a key file of the log folder.
func readKey(dir, name string) (string, error) {
	b, err := safeio.ReadOwn(filepath.Join(dir, name), "log key", 4<<10)
	if errors.Is(err, fs.ErrNotExist) {
		return "", hint.Errorf("make one first: mcpsum-log init --dir "+termtext.ShellArg(dir)+" --origin ORIGIN", "%s is not a log folder (no %s)", dir, name)
	}
	return strings.TrimSpace(string(b)), err
}

// Verifier returns the log's verifier key (for MCPSUMDB).
func Verifier(dir string) (string, error) { return readKey(dir, VerifierFile) }

func signer(dir string) (note.Signer, error) {
	skey, err := readKey(dir, KeyFile)
	if err != nil {
		return nil, err
	}
	return note.NewSigner(skey)
}
