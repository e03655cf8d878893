package sumlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// logPath is every path a log serves: its checkpoint, hash tiles and entry
// bundles (C2SP tlog-tiles, partial ones included) and key lookups.
var logPath = regexp.MustCompile(`^/(checkpoint|tile/([0-9]+|entries)/(x[0-9]{3}/)*[0-9]{3}(\.p/[0-9]{1,3})?|lookup/[0-9a-f]{64})$`)

// Handler serves a log from its storage: GET /checkpoint, /tile/… and
// /lookup/KEYHASH (the record number of a key, as decimal text; 404 when
// the key is not logged), exactly the files a static host serves from the
// same storage (docs/transparency-log.md). Records that have no lookup
// yet (a crashed add, a log made before lookups were files) get theirs
// first. Every request is written to access, one line each; close releases
// the storage.
func Handler(ctx context.Context, dir string, o Options, access io.Writer) (h http.Handler, close func() error, err error) {
	l, err := openLog(ctx, dir, o)
	if err != nil {
		return nil, nil, err
	}
	// Every published record has its lookup before the first request.
	unlock, err := l.st.lock(ctx)
	if err != nil {
		l.close()
		return nil, nil, err
	}
	_, err = l.catchUp(ctx)
	unlock()
	if err != nil {
		l.close()
		return nil, nil, err
	}
	st := l.st
	var mu sync.Mutex
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
		if !logPath.MatchString(p) {
			http.NotFound(rec, r)
			return
		}
		data, err := st.read(r.Context(), p[1:])
		switch {
		case errors.Is(err, fs.ErrNotExist):
			rec.Header().Set("Cache-Control", "no-cache") // a key logged later must not stay unlogged in a cache
			http.NotFound(rec, r)
			return
		case err != nil:
			http.Error(rec, "storage unavailable", http.StatusServiceUnavailable)
			return
		}
		switch {
		case p == "/checkpoint":
			rec.Header().Set("Cache-Control", "no-cache")
			rec.Header().Set("Content-Type", "text/plain; charset=utf-8")
		case p[1] == 'l':
			rec.Header().Set("Cache-Control", "public, max-age=31536000, immutable") // a key's first record never changes
			rec.Header().Set("Content-Type", "text/plain; charset=utf-8")
		default:
			rec.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
			rec.Header().Set("Content-Type", "application/octet-stream")
		}
		rec.Header().Set("Content-Length", strconv.Itoa(len(data)))
		if r.Method == http.MethodGet {
			rec.Write(data)
		}
	}), l.close, nil
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// parallel runs job(0..n-1) on up to 16 goroutines, stopping at the first
// error; progress is told how many are done, now and then.
func parallel(ctx context.Context, n int, job func(int) error, progress func(done int)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		done  int
	)
	for range min(n, 16) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				err := job(j)
				mu.Lock()
				if err != nil && first == nil {
					first = err
					cancel()
				}
				done++
				if progress != nil && (done%1024 == 0 || done == n) {
					progress(done)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for j := range n {
		select {
		case next <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first == nil && ctx.Err() != nil && n > 0 {
		first = ctx.Err()
	}
	return first
}
