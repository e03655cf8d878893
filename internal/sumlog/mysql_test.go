package sumlog_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// startMariaDB starts a private MariaDB server (unix socket only, no TCP)
// in a temporary folder and returns a DSN for a database that holds
// Tessera's MySQL schema. Missing MariaDB skips, or fails under
// MCPSUM_E2E_REQUIRE=1 (CI installs mariadb-server).
func startMariaDB(t *testing.T) string {
	t.Helper()
	server, err1 := exec.LookPath("mariadbd")
	if err1 != nil {
		server = "/usr/sbin/mariadbd"
	}
	install, err2 := exec.LookPath("mariadb-install-db")
	if _, err := os.Stat(server); err != nil || err2 != nil {
		why := "MariaDB is not installed (apt-get install -y mariadb-server)"
		if os.Getenv("MCPSUM_E2E_REQUIRE") == "1" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	dir, err := os.MkdirTemp("", "mcpsum-mariadb-") // short: a socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "s")
	if out, err := exec.Command(install, "--no-defaults", "--datadir="+data, "--user=root", "--auth-root-authentication-method=normal", "--skip-test-db").CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	cmd := exec.Command(server, "--no-defaults", "--datadir="+data, "--socket="+sock, "--skip-networking", "--user=root", "--pid-file="+filepath.Join(dir, "pid"), "--log-error="+filepath.Join(dir, "err.log"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	root := "root@unix(" + sock + ")/"
	var db *sql.DB
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		db, err = sql.Open("mysql", root+"?multiStatements=true")
		if err == nil {
			if err = db.Ping(); err == nil {
				break
			}
			db.Close()
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "err.log"))
			t.Fatalf("MariaDB did not start: %v\n%s", err, log)
		}
	}
	defer db.Close()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/transparency-dev/tessera").Output()
	if err != nil {
		t.Fatalf("go list tessera: %v", err)
	}
	schema, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "storage", "mysql", "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE DATABASE tessera; USE tessera; " + string(schema)); err != nil {
		t.Fatalf("apply Tessera's schema: %v", err)
	}
	return root + "tessera"
}

// The same log on MariaDB through Tessera's MySQL driver: records appended
// by Add are served from the database and looked up with their proofs;
// the same surface again appends nothing; another surface for a logged key
// is refused.
func TestMySQLStorage(t *testing.T) {
	dsn := startMariaDB(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "log")
	vkey, err := sumlog.Init(dir, "mysql.test/log")
	if err != nil {
		t.Fatal(err)
	}
	st := sumlog.Options{MySQL: dsn}
	surf := func(i int) sumdb.Surface {
		return sumdb.Surface{Era: "legacy", Items: [4]map[string]string{{fmt.Sprint("t", i): "sha256:" + strings.Repeat("b", 64)}, {}, {}, {}}}
	}
	var entries []sumlog.Entry
	for i := range 300 {
		entries = append(entries, sumlog.Entry{Key: fmt.Sprintf("npm/p%d@1.0.0#%024x", i, i), Surface: surf(i)})
	}
	if _, err := sumlog.Add(ctx, dir, st, entries); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, sumlog.TilesDir)); !os.IsNotExist(err) {
		t.Errorf("a MySQL log wrote tiles into its folder: %v", err)
	}
	again, err := sumlog.Add(ctx, dir, st, entries[:2])
	if err != nil || again[0].New || again[1].Index != 1 {
		t.Errorf("adding the same surfaces again: %+v %v", again, err)
	}
	if _, err := sumlog.Add(ctx, dir, st, []sumlog.Entry{{Key: entries[5].Key, Surface: surf(6)}}); err == nil || !strings.Contains(err.Error(), "already holds another surface") {
		t.Errorf("another surface for a logged key: %v", err)
	}
	h, closeDB, err := sumlog.Handler(ctx, dir, st, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
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
			t.Fatalf("lookup %d from MySQL: %+v %v", i, res, err)
		}
		if err := cfg.CheckProof(entries[i].Key, surf(i), string(res.Proof)); err != nil {
			t.Errorf("proof %d: %v", i, err)
		}
	}
}
