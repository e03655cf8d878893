package sumlog

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

var keyHashPath = regexp.MustCompile(`^/lookup/[0-9a-f]{64}$`)

// Handler serves a log folder: GET /checkpoint and /tile/… as static files
// (C2SP tlog-checkpoint and tlog-tiles: any web server or bucket can serve
// them too) and GET /lookup/KEYHASH (the record index of a key, as decimal
// text; 404 when the key is not logged). Every request is written to
// access, one line each.
//
// With MySQL storage, checkpoint and tiles are read from the database;
// close releases it.
func Handler(ctx context.Context, dir string, st Options, access io.Writer) (h http.Handler, closeStorage func() error, err error) {
	files := http.FileServer(http.Dir(filepath.Join(dir, TilesDir)))
	closeStorage = func() error { return nil }
	if st.MySQL != "" {
		s, db, err := st.openMySQL(ctx)
		if err != nil {
			return nil, nil, err
		}
		files, closeStorage = tileHandler(s), db.Close
	}
	var mu sync.Mutex
	ix := &indexCache{dir: dir}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			mu.Lock()
			fmt.Fprintf(access, "%s %s %s %d\n", time.Now().UTC().Format(time.RFC3339), r.Method, strconv.Quote(r.URL.Path), rec.status)
			mu.Unlock()
		}()
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(rec, "read-only log", http.StatusMethodNotAllowed)
			return
		}
		p := r.URL.Path
		switch {
		case p == "/checkpoint" || IsTilePath(p):
			if p == "/checkpoint" {
				rec.Header().Set("Cache-Control", "no-cache")
			} else {
				rec.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
			}
			files.ServeHTTP(rec, r)
		case keyHashPath.MatchString(p):
			idx, err := ix.get()
			if err != nil {
				http.Error(rec, "index unavailable", http.StatusInternalServerError)
				return
			}
			e, ok := idx[strings.TrimPrefix(p, "/lookup/")]
			if !ok {
				http.Error(rec, "not logged", http.StatusNotFound)
				return
			}
			rec.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprintf(rec, "%d\n", e.index)
		default:
			http.NotFound(rec, r)
		}
	}), closeStorage, nil
}

// IsTilePath reports whether p is the C2SP tlog-tiles path of a hash tile
// or an entry bundle, spelt as the spec spells it ("/tile/0/x001/234.p/5",
// "/tile/entries/000"): the only files under the log's folder it serves
// besides the checkpoint (no dot segments, no listing, no state file of
// the storage beside them).
func IsTilePath(p string) bool {
	rest, ok := strings.CutPrefix(p, "/tile/")
	if !ok {
		return false
	}
	x := "tile/8/" + rest
	if e, ok := strings.CutPrefix(rest, "entries/"); ok {
		x = "tile/8/data/" + e
	}
	t, err := tlog.ParseTilePath(x)
	return err == nil && t.H == 8 && t.Path() == x
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// indexCache keeps the parsed index until the file changes (add replaces
// it atomically, so a new inode, size or time means new content).
type indexCache struct {
	dir  string
	mu   sync.Mutex
	stat os.FileInfo
	m    map[string]indexEntry
}

func (c *indexCache) get() (map[string]indexEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, err := os.Stat(filepath.Join(c.dir, IndexFile))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	if c.m != nil && (st == nil) == (c.stat == nil) && (st == nil || os.SameFile(st, c.stat) && st.Size() == c.stat.Size() && st.ModTime().Equal(c.stat.ModTime())) {
		return c.m, nil
	}
	m, _, err := readIndex(c.dir)
	if err != nil {
		return nil, err
	}
	c.m, c.stat = m, st
	return m, nil
}
