package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// docsNginx is the nginx server block docs/transparency-log.md shows.
func docsNginx(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "transparency-log.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```nginx\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/transparency-log.md has no ```nginx block")
	}
	return string(m[1])
}

// startNginx serves root (a log's D/tiles) with nginx and the server block
// of the docs, on a free loopback port; it returns the URL.
func startNginx(t testing.TB, root string) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		bin = "/usr/sbin/nginx"
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("MCPSUM_E2E_REQUIRE") == "1" {
			t.Fatal("nginx is not installed (apt-get install -y nginx)")
		}
		t.Skip("nginx is not installed (apt-get install -y nginx)")
	}
	addr := freeLoopback(t)
	server := docsNginx(t)
	for from, to := range map[string]string{"listen 8080;": "listen " + addr + ";", "/srv/mcpsum-log/tiles": root} {
		if !strings.Contains(server, from) {
			t.Fatalf("the docs' nginx block no longer says %q", from)
		}
		server = strings.ReplaceAll(server, from, to)
	}
	prefix := t.TempDir()
	conf := fmt.Sprintf(userLine()+"pid %s/nginx.pid;\nerror_log %s/error.log;\nworker_processes 1;\nevents {}\nhttp {\n  access_log off;\n  client_body_temp_path %s;\n  proxy_temp_path %s;\n  fastcgi_temp_path %s;\n  uwsgi_temp_path %s;\n  scgi_temp_path %s;\n  types { text/plain txt; }\n%s}\n", prefix, prefix, prefix, prefix, prefix, prefix, prefix, server)
	cf := filepath.Join(prefix, "nginx.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", prefix, "-c", cf, "-g", "daemon off;")
	out, err := os.Create(filepath.Join(prefix, "out.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); out.Close() })
	url := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(url + "/checkpoint"); err == nil {
			resp.Body.Close()
			return url
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(prefix, "error.log"))
			o, _ := os.ReadFile(filepath.Join(prefix, "out.log"))
			t.Fatalf("nginx did not start:\n%s%s", b, o)
		}
	}
}

func freeLoopback(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func staticKey(i int) string { return fmt.Sprintf("npm/static%d@1.0.0#%024x", i, i) }
func staticSurface(i int) sumdb.Surface {
	return sumdb.Surface{Era: "legacy", Items: [4]map[string]string{{fmt.Sprint("tool", i%31): "sha256:" + strings.Repeat("f", 64)}, {}, {}, {}}}
}

// staticLog makes a log of n records in a folder.
func staticLog(t testing.TB, n int) (dir, vkey string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "log")
	vkey, err := sumlog.Init(dir, "static.e2e/mcp")
	if err != nil {
		t.Fatal(err)
	}
	entries := make([]sumlog.Entry, n)
	for i := range entries {
		entries[i] = sumlog.Entry{Key: staticKey(i), Surface: staticSurface(i)}
	}
	if _, err := sumlog.Add(context.Background(), dir, sumlog.Options{}, entries); err != nil {
		t.Fatal(err)
	}
	return dir, vkey
}

// The log's folder served by a static host (nginx, with the server block
// docs/transparency-log.md shows, nothing of mcpsum running): lookups find
// and prove records, a key that is not logged is not found (and the miss
// is not cacheable), the hits are immutable, and Tessera's own state is
// not served.
func TestStaticHost(t *testing.T) {
	t.Parallel()
	dir, vkey := staticLog(t, 600)
	url := startNginx(t, filepath.Join(dir, "tiles"))
	cfg, err := sumdb.ParseConfig(vkey+" "+url, "")
	if err != nil {
		t.Fatal(err)
	}
	c := &sumdb.Client{Config: cfg, StateDir: t.TempDir()}
	for _, i := range []int{0, 256, 599} {
		res, err := c.Check(context.Background(), staticKey(i), staticSurface(i))
		if err != nil || !res.Found {
			t.Fatalf("lookup %d from nginx: %+v %v", i, res, err)
		}
		if err := cfg.CheckProof(staticKey(i), staticSurface(i), string(res.Proof)); err != nil {
			t.Errorf("proof %d: %v", i, err)
		}
	}
	if res, err := c.Check(context.Background(), staticKey(600), staticSurface(600)); err != nil || res.Found {
		t.Errorf("a key the log does not hold: %+v %v", res, err)
	}
	head := func(p string) *http.Response {
		resp, err := http.Get(url + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if r := head("/lookup/" + sumlog.KeyHash(staticKey(600))); r.StatusCode != 404 || r.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("a miss: %s, Cache-Control %q, want 404 and no-cache", r.Status, r.Header.Get("Cache-Control"))
	}
	if r := head("/lookup/" + sumlog.KeyHash(staticKey(3))); r.StatusCode != 200 || !strings.Contains(r.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("a hit: %s, Cache-Control %q, want immutable", r.Status, r.Header.Get("Cache-Control"))
	}
	if r := head("/checkpoint"); r.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("checkpoint Cache-Control %q, want no-cache", r.Header.Get("Cache-Control"))
	}
	for _, p := range []string{"/.state/treeState", "/lookup/indexed"} {
		if r := head(p); r.StatusCode != 404 {
			t.Errorf("%s: %s, want 404 (not part of the log's reads)", p, r.Status)
		}
	}
}

// BenchmarkLookupStatic100k is a lookup with its proofs (checkpoint,
// lookup, entry bundle, hash tiles, inclusion and consistency) against a
// log of 100,000 records served by nginx over loopback, as the docs set it
// up (MCPSUM_BENCH_SMALL=1: 1,000 records). It reports the p50 and p95
// latency of a lookup; goal p95 <= 50 ms.
func BenchmarkLookupStatic100k(b *testing.B) {
	n := 100_000
	if os.Getenv("MCPSUM_BENCH_SMALL") == "1" {
		n = 1000
	}
	dir, vkey := staticLog(b, n)
	url := startNginx(b, filepath.Join(dir, "tiles"))
	cfg, err := sumdb.ParseConfig(vkey+" "+url, "")
	if err != nil {
		b.Fatal(err)
	}
	c := &sumdb.Client{Config: cfg, StateDir: b.TempDir()}
	ctx := context.Background()
	if _, err := c.Check(ctx, staticKey(0), staticSurface(0)); err != nil {
		b.Fatal(err)
	}
	var took []time.Duration
	i := 0
	for b.Loop() {
		i = (i + 7919) % n
		start := time.Now()
		if res, err := c.Check(ctx, staticKey(i), staticSurface(i)); err != nil || !res.Found {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
}

// userLine lets nginx's worker read the test's private temporary folders:
// run as root (the tests' user on CI), it would drop to nobody.
func userLine() string {
	if os.Geteuid() == 0 {
		return "user root;\n"
	}
	return ""
}
