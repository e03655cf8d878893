package sumlog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/transparency-dev/tessera"
)

// ErrUnsupported is what the log server's side returns on a platform it
// does not run on (Windows): see Supported.
var ErrUnsupported = errors.New("the transparency log server is not supported")

// StorageFile is the file of a log folder that names where the log's
// checkpoint, tiles and lookups live (a storage spec, never a secret).
// A folder without it keeps them in D/tiles.
const StorageFile = "storage"

// Options say where a log's checkpoint and tiles live and who cosigns its
// checkpoints.
type Options struct {
	// Storage, when set, is a storage spec (see ParseStorage); it must be
	// the one the log folder records (a log lives in one place: migrate
	// moves it). Empty: the folder's record, D/tiles by default.
	Storage string
	// WitnessPolicy, when set, is a witness policy (Sigsum policy format:
	// "witness NAME VKEY URL", "group NAME K MEMBER...", "quorum NAME"):
	// add asks those witnesses to cosign (C2SP tlog-witness) and publishes
	// a checkpoint only once the quorum has. Add keeps it in the folder
	// (PolicyFile): every later checkpoint of the log needs it too.
	WitnessPolicy []byte
	// PublishTimeout bounds the wait for a signed (and cosigned) checkpoint
	// that covers what was appended; 0 is two minutes.
	PublishTimeout time.Duration
	// Getenv reads the environment (the database DSN of S3 storage); nil
	// is os.Getenv.
	Getenv func(string) string
}

func (o Options) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

func (o Options) publishTimeout() time.Duration {
	if o.PublishTimeout > 0 {
		return o.PublishTimeout
	}
	return 2 * time.Minute
}

// Storage is where a log's checkpoint, tiles and lookups are kept, as a
// spec: "posix" (D/tiles), "posix:PATH" (a folder elsewhere) or
// "s3://BUCKET[/PREFIX][?endpoint=URL&region=R&dsn-file=FILE]" (Tessera's
// AWS driver: the objects in an S3-compatible bucket, coordination in a
// MySQL-compatible database whose DSN is read from dsn-file or the
// environment variable MCPSUM_LOG_DSN, never from the spec).
type Storage struct {
	Kind string // "posix" or "s3"
	Path string // posix: the folder ("" = D/tiles)
	// s3
	Bucket, Prefix, Endpoint, Region, DSNFile string
}

// DSNEnv is the environment variable that holds the database DSN of S3
// storage (user:password@tcp(host:3306)/db) when the spec names no dsn-file.
const DSNEnv = "MCPSUM_LOG_DSN"

// ParseStorage reads a storage spec.
func ParseStorage(spec string) (Storage, error) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "" || spec == "posix":
		return Storage{Kind: "posix"}, nil
	case strings.HasPrefix(spec, "posix:") || filepath.IsAbs(spec):
		p := strings.TrimPrefix(spec, "posix:")
		if !filepath.IsAbs(p) {
			return Storage{}, fmt.Errorf("storage %q: want posix:/ABSOLUTE/FOLDER", spec)
		}
		return Storage{Kind: "posix", Path: filepath.Clean(p)}, nil
	case strings.HasPrefix(spec, "s3://"):
		u, err := url.Parse(spec)
		if err != nil || u.Host == "" || u.User != nil || u.Fragment != "" {
			return Storage{}, fmt.Errorf("storage %q: want s3://BUCKET[/PREFIX][?endpoint=URL&region=R&dsn-file=FILE]", spec)
		}
		s := Storage{Kind: "s3", Bucket: u.Host, Prefix: strings.Trim(u.Path, "/")}
		q := u.Query()
		for k, v := range q {
			if len(v) != 1 {
				return Storage{}, fmt.Errorf("storage %q: %s given %d times", spec, k, len(v))
			}
			switch k {
			case "endpoint":
				e, err := url.Parse(v[0])
				if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" || e.User != nil || e.RawQuery != "" || e.Fragment != "" {
					return Storage{}, fmt.Errorf("storage %q: endpoint %q: want an http(s) URL without credentials", spec, v[0])
				}
				s.Endpoint = v[0]
			case "region":
				s.Region = v[0]
			case "dsn-file":
				if !filepath.IsAbs(v[0]) {
					return Storage{}, fmt.Errorf("storage %q: dsn-file %q: want an absolute path", spec, v[0])
				}
				s.DSNFile = v[0]
			default:
				return Storage{}, fmt.Errorf("storage %q: unknown parameter %q (endpoint, region, dsn-file)", spec, k)
			}
		}
		return s, nil
	}
	return Storage{}, fmt.Errorf("storage %q: want posix, posix:/FOLDER or s3://BUCKET[/PREFIX]?endpoint=URL (the database DSN in %s or dsn-file=FILE)", spec, DSNEnv)
}

// String is the spec (no secret is ever part of it).
func (s Storage) String() string {
	switch s.Kind {
	case "s3":
		u := url.URL{Scheme: "s3", Host: s.Bucket, Path: "/" + s.Prefix}
		if s.Prefix == "" {
			u.Path = ""
		}
		var q []string
		for _, kv := range [][2]string{{"endpoint", s.Endpoint}, {"region", s.Region}, {"dsn-file", s.DSNFile}} {
			if kv[1] != "" {
				q = append(q, kv[0]+"="+queryEscape.Replace(kv[1]))
			}
		}
		u.RawQuery = strings.Join(q, "&")
		return u.String()
	case "posix":
		if s.Path != "" {
			return "posix:" + s.Path
		}
	}
	return "posix"
}

// queryEscape escapes what would change a spec's query; ':' and '/' stay
// readable.
var queryEscape = strings.NewReplacer("%", "%25", "&", "%26", "#", "%23", "+", "%2B", " ", "%20", "=", "%3D", ";", "%3B")

// place names where s keeps a log of the folder dir, for comparing specs
// ("posix" and "posix:D/tiles" are one place).
func (s Storage) place(dir string) string {
	if s.Kind == "posix" {
		p := s.Path
		if p == "" {
			p = filepath.Join(dir, TilesDir)
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		return "posix:" + p
	}
	return s.String()
}

// RecordedStorage is the storage the log folder dir records (D/tiles
// when it records none).
func RecordedStorage(dir string) (Storage, error) {
	b, err := safeio.ReadOwn(filepath.Join(dir, StorageFile), "log storage", 4<<10)
	if errors.Is(err, fs.ErrNotExist) {
		return Storage{Kind: "posix"}, nil
	}
	if err != nil {
		return Storage{}, err
	}
	s, err := ParseStorage(string(b))
	if err != nil {
		return Storage{}, fmt.Errorf("%s: %v", filepath.Join(dir, StorageFile), err)
	}
	return s, nil
}

// recordStorage makes s the storage the folder records.
func recordStorage(dir string, s Storage) error {
	return statefile.WriteAtomic(filepath.Join(dir, StorageFile), []byte(s.String()+"\n"), statefile.WriteOptions{Perm: 0o644, Sync: true})
}

// storageOf is the storage an operation on dir uses: the recorded one; a
// spec in o that names another is refused (appending elsewhere would fork
// the log).
func storageOf(dir string, o Options) (Storage, error) {
	rec, err := RecordedStorage(dir)
	if err != nil || o.Storage == "" {
		return rec, err
	}
	s, err := ParseStorage(o.Storage)
	if err != nil {
		return Storage{}, err
	}
	if s.place(dir) != rec.place(dir) {
		return Storage{}, hint.Errorf("to move it there: mcpsum-log migrate --dir "+termtext.ShellArg(dir)+" --from "+termtext.ShellArg(rec.String())+" --to "+termtext.ShellArg(s.String()),
			"the log in %s lives in %s, not %s (a log lives in one place)", dir, rec, s)
	}
	return rec, nil
}

// store is what mcpsum-log needs of a storage besides Tessera's driver:
// objects at their C2SP tlog-tiles paths (checkpoint, tile/…, and the
// log's lookup/KEYHASH files), and one lock for every writer.
type store interface {
	// read returns the object at path (fs.ErrNotExist when there is none).
	read(ctx context.Context, path string) ([]byte, error)
	// write stores data at path (lookups, the index mark).
	write(ctx context.Context, path string, data []byte) error
	// flush makes the writes before it durable.
	flush(ctx context.Context) error
	// driver is Tessera's driver on this storage.
	driver(ctx context.Context) (tessera.Driver, error)
	// lock serialises the writers of this storage (adds, migrations).
	lock(ctx context.Context) (unlock func(), err error)
	close() error
	minInterval() time.Duration // the least checkpoint interval the driver allows
	String() string
}

// open opens s for the log folder dir.
func (s Storage) open(ctx context.Context, dir string, o Options) (store, error) {
	switch s.Kind {
	case "s3":
		return openS3(ctx, s, o)
	default:
		p := s.Path
		if p == "" {
			p = filepath.Join(dir, TilesDir)
		}
		return openFolder(p, s.String())
	}
}

// dsn reads the database DSN of S3 storage: from the spec's dsn-file (the
// file's first line) or the environment; it is never printed.
func (s Storage) dsn(o Options) (string, error) {
	if s.DSNFile != "" {
		b, err := safeio.ReadRegular(s.DSNFile, "database DSN file", 4<<10)
		if err != nil {
			return "", fmt.Errorf("storage %s: %v", s, err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		if line = strings.TrimSpace(line); line != "" {
			return line, nil
		}
		return "", fmt.Errorf("storage %s: %s is empty (want the database DSN user:password@tcp(host:3306)/db)", s, s.DSNFile)
	}
	if v := strings.TrimSpace(o.getenv(DSNEnv)); v != "" {
		return v, nil
	}
	return "", hint.Errorf("set "+DSNEnv+" to its DSN (user:password@tcp(host:3306)/db), or add dsn-file=FILE to the spec", "storage %s needs its database", s)
}

// maxObject caps what is read from storage: an entry bundle of 256 records
// is about 150 KiB.
const maxObject = 4 << 20
