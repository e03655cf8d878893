package logtest

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // the driver of the DSN it returns

	"github.com/mcpsum/mcpsum/internal/testbin"
)

var dbSeq atomic.Int64

// The MariaDB server the tests of one test binary share (StartMariaDB):
// started by the first test that asks, stopped after the last test ends
// (testbin.AtExit).
var (
	sharedOnce sync.Once
	sharedRoot string // root@unix(SOCKET)/
	sharedErr  string
)

// StartMariaDB returns the DSN of a new, empty database of its own on a
// private MariaDB server (unix socket only, no TCP) in a temporary folder.
// Under testbin.Run the tests of one test binary share that server (its
// data folder, ~1.5 CPU-seconds to create, and its start are the cost),
// each test with a database of its own; elsewhere each call starts one
// that stops when the test ends. Debian's mariadb-server provides it
// (.ci/run installs it).
func StartMariaDB(t testing.TB) string {
	t.Helper()
	server, install := mariaDBPrograms(t)
	sharedOnce.Do(func() {
		r, stop, err := runMariaDB(server, install)
		switch {
		case err != nil:
			sharedErr = err.Error()
		case testbin.AtExit(stop):
			sharedRoot = r
		default: // not under testbin.Run: nothing would stop a shared server
			stop()
		}
	})
	root := sharedRoot
	switch {
	case sharedErr != "":
		t.Fatal(sharedErr)
	case root == "":
		r, stop, err := runMariaDB(server, install)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		root = r
	}
	db, err := sql.Open("mysql", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	name := fmt.Sprintf("log%d", dbSeq.Add(1))
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	return root + name
}

// mariaDBPrograms finds mariadbd and mariadb-install-db, or skips t.
func mariaDBPrograms(t testing.TB) (server, install string) {
	t.Helper()
	server, err1 := exec.LookPath("mariadbd")
	if err1 != nil {
		server = "/usr/sbin/mariadbd"
	}
	install, err2 := exec.LookPath("mariadb-install-db")
	if _, err := os.Stat(server); err != nil || err2 != nil {
		skip(t, "MariaDB is not installed (apt-get install -y mariadb-server)")
	}
	return server, install
}

// runMariaDB creates a data folder in a new temporary folder and starts a
// server on it, returning its root DSN (no database) and a stop that
// kills it and removes the folder. The server gets SIGKILL when the test
// process dies before stop (a test binary's timeout panic): it is started
// from a goroutine that holds its OS thread until the server exits, since
// the parent-death signal follows the thread that started the child.
func runMariaDB(server, install string) (root string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "mcpsum-mariadb-") // short: a socket path has a length limit
	if err != nil {
		return "", nil, err
	}
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "s")
	// A temporary folder of its own: MariaDB removes '#sql*' files it
	// finds in its tmpdir, so two servers sharing one (test binaries in
	// parallel) delete each other's temporary tables.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	env := append(os.Environ(), "TMPDIR="+tmp)
	installCmd := exec.Command(install, "--no-defaults", "--datadir="+data, "--user=root", "--auth-root-authentication-method=normal", "--skip-test-db")
	installCmd.Env = env
	if out, err := installCmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("mariadb-install-db: %v\n%s", err, out)
	}
	logPath := filepath.Join(dir, "err.log")
	out, err := os.Create(filepath.Join(dir, "out.log"))
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	cmd := exec.Command(server, "--no-defaults", "--datadir="+data, "--socket="+sock, "--skip-networking", "--user=root", "--pid-file="+filepath.Join(dir, "pid"), "--log-error="+logPath, "--tmpdir="+tmp)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, out
	dieWithParent(cmd)
	started, exited := make(chan error, 1), make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the server
		err := cmd.Start()
		started <- err
		if err == nil {
			cmd.Wait()
		}
		close(exited)
	}()
	if err := <-started; err != nil {
		out.Close()
		os.RemoveAll(dir)
		return "", nil, err
	}
	stop = func() {
		cmd.Process.Kill()
		<-exited
		out.Close()
		os.RemoveAll(dir)
	}
	root = "root@unix(" + sock + ")/"
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		db, err := sql.Open("mysql", root)
		if err == nil {
			err = db.Ping()
			db.Close()
			if err == nil {
				return root, stop, nil
			}
		}
		if time.Now().After(deadline) {
			err = fmt.Errorf("MariaDB did not start: %v\n%s", err, tail(logPath))
			stop()
			return "", nil, err
		}
	}
}
