package sumlog_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/internal/sumlog/logtest"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// s3Log makes a log on Tessera's AWS driver: a real S3-compatible server
// (Versity's gateway) and MariaDB. The DSN reaches the library through
// Options.Getenv, as MCPSUM_LOG_DSN would.
func s3Log(t *testing.T, origin string) (dir, vkey, spec string, o sumlog.Options, s3 *logtest.S3) {
	t.Helper()
	s3 = logtest.StartS3(t, "mcpsum-log")
	dsn := logtest.StartMariaDB(t)
	spec = "s3://" + s3.Bucket + "/logs/one?endpoint=" + s3.Endpoint
	o = sumlog.Options{Getenv: func(k string) string {
		if k == sumlog.DSNEnv {
			return dsn
		}
		return ""
	}}
	dir = filepath.Join(t.TempDir(), "log")
	io := o
	io.Storage = spec
	vkey, err := sumlog.InitIn(context.Background(), dir, origin, io)
	if err != nil {
		t.Fatal(err)
	}
	return dir, vkey, spec, o, s3
}

// The log on an S3-compatible server and MariaDB through Tessera's AWS
// driver: records appended by Add are objects of the bucket, served and
// looked up with their proofs; the same surface again appends nothing;
// another surface for a logged key is refused; the folder records the
// storage, and a spec that names another is refused.
func TestS3Storage(t *testing.T) {
	t.Parallel()
	dir, vkey, spec, o, s3 := s3Log(t, "s3.test/log")
	ctx := context.Background()
	surf := func(i int) sumdb.Surface {
		return sumdb.Surface{Era: "legacy", Items: [4]map[string]string{{fmt.Sprint("t", i): "sha256:" + strings.Repeat("b", 64)}, {}, {}, {}}}
	}
	var entries []sumlog.Entry
	for i := range 300 {
		entries = append(entries, sumlog.Entry{Key: fmt.Sprintf("npm/p%d@1.0.0#%024x", i, i), Surface: surf(i)})
	}
	if _, err := sumlog.Add(ctx, dir, o, entries); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, sumlog.TilesDir)); !os.IsNotExist(err) {
		t.Errorf("an S3 log wrote tiles into its folder: %v", err)
	}
	for _, obj := range []string{"checkpoint", "tile/entries/000", "tile/0/000", "lookup/" + sumlog.KeyHash(entries[299].Key)} {
		if _, err := os.Stat(filepath.Join(s3.Root, s3.Bucket, "logs", "one", obj)); err != nil {
			t.Errorf("object %s is not in the bucket: %v", obj, err)
		}
	}
	if rec, err := sumlog.RecordedStorage(dir); err != nil || rec.String() != spec {
		t.Errorf("recorded storage %v %v, want %s", rec, err, spec)
	}
	again, err := sumlog.Add(ctx, dir, o, entries[:2])
	if err != nil || again[0].New || again[1].Index != 1 {
		t.Errorf("adding the same surfaces again: %+v %v", again, err)
	}
	if _, err := sumlog.Add(ctx, dir, o, []sumlog.Entry{{Key: entries[5].Key, Surface: surf(6)}}); err == nil || !strings.Contains(err.Error(), "already holds another surface") {
		t.Errorf("another surface for a logged key: %v", err)
	}
	other := o
	other.Storage = "posix"
	if _, err := sumlog.Add(ctx, dir, other, entries[:1]); err == nil || !strings.Contains(err.Error(), "lives in "+spec) {
		t.Errorf("an add naming another storage: %v", err)
	}
	h, closeStorage, err := sumlog.Handler(ctx, dir, o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer closeStorage()
	srv := httptest.NewServer(h)
	defer srv.Close()
	cfg, err := sumdb.ParseConfig(vkey+" "+srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	c := &sumdb.Client{Config: cfg, StateDir: t.TempDir()}
	for _, i := range []int{0, 257, 299} {
		res, err := c.Check(ctx, entries[i].Key, surf(i))
		if err != nil || !res.Found {
			t.Fatalf("lookup %d from S3: %+v %v", i, res, err)
		}
		if err := cfg.CheckProof(entries[i].Key, surf(i), string(res.Proof)); err != nil {
			t.Errorf("proof %d: %v", i, err)
		}
	}
}

// A database DSN is a secret: a storage that cannot reach its database
// says so without printing the DSN.
func TestS3StorageHidesDSN(t *testing.T) {
	t.Parallel()
	s3 := logtest.StartS3(t, "b")
	const dsn = "mcpsum:s3cr3t-pass@tcp(127.0.0.1:1)/log"
	o := sumlog.Options{Storage: "s3://b?endpoint=" + s3.Endpoint, Getenv: func(k string) string { return map[string]string{sumlog.DSNEnv: dsn}[k] }}
	_, err := sumlog.InitIn(context.Background(), filepath.Join(t.TempDir(), "log"), "s3.test/log", o)
	if err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("init with an unreachable database: %v", err)
	}
	o.Getenv = func(string) string { return "" }
	if _, err := sumlog.InitIn(context.Background(), filepath.Join(t.TempDir(), "log"), "s3.test/log", o); err == nil || !strings.Contains(strings.Join(hint.Of(err), "\n"), "set "+sumlog.DSNEnv+" to its DSN") {
		t.Fatalf("init without a DSN: %v, want it to name %s", err, sumlog.DSNEnv)
	}
}
