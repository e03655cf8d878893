package sumlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql" // the MySQL driver Tessera's MySQL storage runs on
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/storage/mysql"
	"golang.org/x/mod/sumdb/tlog"
)

// ErrUnsupported is what the log server's side returns on a platform it
// does not run on (Windows): see Supported.
var ErrUnsupported = errors.New("the transparency log server is not supported")

// Options say where a log's checkpoint and tiles live and who cosigns its
// checkpoints.
type Options struct {
	// MySQL, when set, is a DSN (user:password@tcp(host:3306)/db) of a
	// MySQL/MariaDB database holding Tessera's schema, used instead of the
	// POSIX folder D/tiles (the default; any web server can serve that).
	// The signing key and the key index stay in the folder either way.
	MySQL string
	// WitnessPolicy, when set, is a witness policy (Sigsum policy format:
	// "witness NAME VKEY URL", "group NAME K MEMBER...", "quorum NAME"):
	// add asks those witnesses to cosign (C2SP tlog-witness) and publishes
	// a checkpoint only once the quorum has.
	WitnessPolicy []byte
}

// witnesses applies the witness policy to Tessera's options.
func (st Options) witnesses(o *tessera.AppendOptions) error {
	if len(st.WitnessPolicy) == 0 {
		return nil
	}
	g, err := tessera.NewWitnessGroupFromPolicy(st.WitnessPolicy)
	if err != nil {
		return fmt.Errorf("witness policy: %v", err)
	}
	o.WithWitnesses(g, &tessera.WitnessOptions{Timeout: 30 * time.Second})
	return nil
}

// reader is what serving a log needs from its storage.
type reader interface {
	ReadCheckpoint(ctx context.Context) ([]byte, error)
	ReadTile(ctx context.Context, level, index uint64, p uint8) ([]byte, error)
	ReadEntryBundle(ctx context.Context, index uint64, p uint8) ([]byte, error)
}

// driver opens the storage for appending.
func (st Options) driver(ctx context.Context, dir string) (tessera.Driver, func() error, error) {
	if st.MySQL == "" {
		d, err := folderDriver(ctx, filepath.Join(dir, TilesDir))
		return d, func() error { return nil }, err
	}
	s, db, err := st.openMySQL(ctx)
	if err != nil {
		return nil, nil, err
	}
	return s, db.Close, nil
}

// MySQLPassword is the password a MySQL DSN holds ("" for none, or a DSN
// that does not parse), for keeping it out of everything printed.
func MySQLPassword(dsn string) string {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		if at := strings.LastIndexByte(dsn, '@'); at > 0 {
			if _, pw, ok := strings.Cut(dsn[:at], ":"); ok {
				return pw
			}
		}
		return ""
	}
	return cfg.Passwd
}

func (st Options) openMySQL(ctx context.Context) (*mysql.Storage, *sql.DB, error) {
	db, err := sql.Open("mysql", st.MySQL)
	if err != nil {
		return nil, nil, fmt.Errorf("MySQL DSN: %v", err)
	}
	s, err := mysql.New(ctx, db)
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("MySQL storage: %v (the database needs Tessera's schema, storage/mysql/schema.sql of github.com/transparency-dev/tessera v1.0.4)", err)
	}
	return s, db, nil
}

// checkpointInterval is how often a checkpoint may be published (MySQL's
// driver allows no less than a second).
func (st Options) checkpointInterval() time.Duration {
	if st.MySQL != "" {
		return time.Second
	}
	return 100 * time.Millisecond
}

// tileHandler serves checkpoint and tiles from a storage reader (MySQL),
// at the C2SP tlog-tiles paths.
func tileHandler(r reader) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		p := strings.TrimPrefix(req.URL.Path, "/")
		var data []byte
		var err error
		if p == "checkpoint" {
			data, err = r.ReadCheckpoint(req.Context())
		} else {
			// tile/L/N[.p/W] and tile/entries/N[.p/W] are x/mod's tile paths
			// without the height, with data for entries.
			var t tlog.Tile
			t, err = tlog.ParseTilePath("tile/8/" + strings.Replace(strings.TrimPrefix(p, "tile/"), "entries/", "data/", 1))
			if err != nil {
				http.NotFound(w, req)
				return
			}
			partial := uint8(0)
			if t.W < 1<<8 {
				partial = uint8(t.W)
			}
			if t.L < 0 {
				data, err = r.ReadEntryBundle(req.Context(), uint64(t.N), partial)
			} else {
				data, err = r.ReadTile(req.Context(), uint64(t.L), uint64(t.N), partial)
				if err == nil && len(data) > t.W*tlog.HashSize {
					data = data[:t.W*tlog.HashSize] // the tile grew since; its prefix is the partial tile
				}
			}
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			http.NotFound(w, req)
		case err != nil:
			http.Error(w, "storage unavailable", http.StatusServiceUnavailable)
		default:
			w.Write(data)
		}
	})
}
