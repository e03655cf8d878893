package logtest

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // the driver of the DSN it returns
)

var dbSeq atomic.Int64

// StartMariaDB starts a private MariaDB server (unix socket only, no TCP)
// in a temporary folder and returns the DSN of a new, empty database on
// it. Debian's mariadb-server provides it (.ci/run installs it).
func StartMariaDB(t testing.TB) string {
	t.Helper()
	server, err1 := exec.LookPath("mariadbd")
	if err1 != nil {
		server = "/usr/sbin/mariadbd"
	}
	install, err2 := exec.LookPath("mariadb-install-db")
	if _, err := os.Stat(server); err != nil || err2 != nil {
		skip(t, "MariaDB is not installed (apt-get install -y mariadb-server)")
	}
	dir, err := os.MkdirTemp("", "mcpsum-mariadb-") // short: a socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "s")
	// A temporary folder of its own: MariaDB removes '#sql*' files it
	// finds in its tmpdir, so two servers sharing one (tests in parallel)
	// delete each other's temporary tables.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TMPDIR="+tmp)
	installCmd := exec.Command(install, "--no-defaults", "--datadir="+data, "--user=root", "--auth-root-authentication-method=normal", "--skip-test-db")
	installCmd.Env = env
	if out, err := installCmd.CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	logPath := filepath.Join(dir, "err.log")
	cmd := exec.Command(server, "--no-defaults", "--datadir="+data, "--socket="+sock, "--skip-networking", "--user=root", "--pid-file="+filepath.Join(dir, "pid"), "--log-error="+logPath, "--tmpdir="+tmp)
	cmd.Env = env
	start(t, cmd, filepath.Join(dir, "out.log"))
	root := "root@unix(" + sock + ")/"
	var db *sql.DB
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		db, err = sql.Open("mysql", root)
		if err == nil {
			if err = db.Ping(); err == nil {
				break
			}
			db.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("MariaDB did not start: %v\n%s", err, tail(logPath))
		}
	}
	defer db.Close()
	name := fmt.Sprintf("log%d", dbSeq.Add(1))
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	return root + name
}
