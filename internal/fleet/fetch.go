package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/safeio"
)

// Size caps of what sync reads from where the organisation publishes.
const (
	maxRelease = 64 << 10
	maxBundle  = 1 << 20
	maxLock    = 64 << 20 // attestproto.MaxInput: the helper reads no more
)

// source is where an org lock is published: a URL (https, or http to this
// machine) or a file, with its release and bundle beside it.
type source struct {
	from string
	u    *url.URL // nil for a file
	http *http.Client
}

func openSource(from string) (*source, error) {
	if !strings.Contains(from, "://") {
		abs, err := filepath.Abs(from)
		if err != nil {
			return nil, err
		}
		return &source{from: abs}, nil
	}
	u, err := netrule.ParseServerURL(from)
	if err != nil {
		return nil, usage("--from %s: %v", quote(from), err)
	}
	if u.RawQuery != "" {
		return nil, usage("--from %s: a URL with a ?query cannot have the release beside it; name the lock file's own URL", quote(from))
	}
	origin := netrule.Origin(u)
	client := &http.Client{
		Timeout: 60 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if netrule.Origin(req.URL) != origin {
				return fmt.Errorf("redirect to %s leaves %s", req.URL.Redacted(), origin)
			}
			if len(via) >= 5 {
				return errors.New("more than 5 redirects")
			}
			return nil
		},
	}
	return &source{from: from, u: u, http: client}, nil
}

// get reads the published file whose name is the lock's plus suffix ("" for
// the lock itself), at most max bytes. what names it in errors.
func (s *source) get(ctx context.Context, suffix, what string, max int64) ([]byte, error) {
	if s.u == nil {
		p := s.from + suffix
		b, err := safeio.ReadRegular(p, what, max)
		if missing(err) {
			return nil, fmt.Errorf("no %s at %s%s", what, quote(p), publishHint(suffix))
		}
		return b, err
	}
	u := *s.u
	u.Path += suffix
	if u.RawPath != "" {
		u.RawPath += suffix
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching the %s: %w", what, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching the %s: %s answered %s%s", what, quote(u.String()), resp.Status, publishHint(suffix))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("fetching the %s from %s: %w", what, quote(u.String()), err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("the %s at %s is over %d bytes: not one mcpsum published", what, quote(u.String()), max)
	}
	return b, nil
}

func publishHint(suffix string) string {
	if suffix == "" {
		return ""
	}
	return " (the organisation publishes it beside the lock with 'mcpsum fleet release')"
}
