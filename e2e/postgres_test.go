//go:build unix

package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// server-postgres against a real PostgreSQL: it lists one resource per
// table, so a table created after locking is definitional drift by default
// (verify fails, the proxy quarantines even the unchanged query tool). With
// the resources declared data (policy.unpinned) verify passes and says they
// changed, and the proxy lists the new table and forwards query to it.
func TestPostgresTableAfterLock(t *testing.T) {
	t.Parallel()
	srv := npmServer(t, "server-postgres")
	db, psql := startPostgres(t)
	psql("create table users (id int primary key, name text); insert into users values (1, 'ada')")
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "pg", "--", "node", srv, db)
	lock := filepath.Join(dir, "mcp.lock")
	locked, err := os.ReadFile(lock)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(locked), `/users/schema"`) {
		t.Fatalf("the lock has no resource for the users table:\n%s", locked)
	}
	psql("create table orders (id int primary key, total int); insert into orders values (7, 42)")
	orders := strings.Replace(db, "postgresql://", "postgres://", 1)
	orders = orders[:strings.LastIndex(orders, "/")] + "/orders/schema"

	// The default: everything pinned, the new table is drift.
	if stdout, _, code := mcpsum(t, dir, nil, "verify"); code != 1 || !strings.Contains(stdout, "DRIFT") || !strings.Contains(stdout, orders) {
		t.Fatalf("a table created after locking, resources pinned: verify exit %d (want 1 naming %s)\n%s", code, orders, stdout)
	}
	// Only a table's resource drifted: verify names the edit below.
	unpin := `add "unpinned": ["resources"] to the "policy" of server "pg"`
	if stdout, _, _ := mcpsum(t, dir, nil, "verify"); !strings.Contains(stdout, unpin) {
		t.Errorf("verify does not name policy.unpinned (%s):\n%s", unpin, stdout)
	}
	cs := goClient(t, proxyCmd(dir, "pg"), "legacy", nil)
	if _, err := callJSON(t, cs, "query", map[string]any{"sql": "select total from orders"}); err == nil {
		t.Error("resources pinned: the proxy forwarded query to a drifted server")
	} else {
		quarantined(t, err, orders)
		if !strings.Contains(err.Error(), unpin) {
			t.Errorf("the quarantine does not name policy.unpinned (%s): %v", unpin, err)
		}
	}
	cs.Close()

	// Declared data: verify passes and says so, the proxy serves and forwards.
	edited := strings.Replace(string(locked), `      "digests": {`, `      "policy": {"unpinned": ["resources"]},`+"\n"+`      "digests": {`, 1)
	if err := os.WriteFile(lock, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, code := mcpsum(t, dir, nil, "verify")
	if code != 0 || !strings.Contains(stdout, "pg: resources not pinned (policy.unpinned declares them data): changed since the lock (1 added), not drift") {
		t.Fatalf("resources declared data: verify exit %d\n%s", code, stdout)
	}
	for _, era := range []string{"legacy", "modern"} {
		cs := goClient(t, proxyCmd(dir, "pg"), era, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := cs.ListResources(ctx, nil)
		cancel()
		if err != nil {
			t.Fatalf("%s client: resources/list: %v", era, err)
		}
		var uris []string
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		sort.Strings(uris)
		if want := []string{orders, strings.Replace(orders, "/orders/", "/users/", 1)}; strings.Join(uris, " ") != strings.Join(want, " ") {
			t.Errorf("%s client: resources %v, want the live tables %v", era, uris, want)
		}
		got, err := callJSON(t, cs, "query", map[string]any{"sql": "select total from orders"})
		if err != nil || !strings.Contains(got, `\"total\": 42`) {
			t.Errorf("%s client: query on the table created after locking: %s %v", era, got, err)
		}
		cs.Close()
	}
}

// startPostgres starts a private PostgreSQL cluster in a temporary folder,
// listening on a free loopback port (its socket in that folder), with a
// trusted superuser "mcpsum", and returns its database URL and a function
// running SQL with psql. initdb refuses root, so as root the cluster runs as
// the postgres user (nobody if there is none). Missing PostgreSQL skips, or
// fails under MCPSUM_E2E_REQUIRE=1 (CI installs it from apt).
func startPostgres(t *testing.T) (string, func(sql string)) {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		requirePeers(t, "PostgreSQL is not installed: no /usr/lib/postgresql/*/bin/initdb (apt-get install -y --no-install-recommends postgresql)")
	}
	sort.Slice(bins, func(i, j int) bool { return pgMajor(bins[i]) < pgMajor(bins[j]) })
	pgbin := filepath.Dir(bins[len(bins)-1])
	dir, err := os.MkdirTemp("", "mcpsum-pg-") // short: a socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
		if u, err := user.Lookup("postgres"); err == nil {
			uid, _ := strconv.Atoi(u.Uid)
			gid, _ := strconv.Atoi(u.Gid)
			cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		}
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(pgbin, name), args...)
		cmd.SysProcAttr, cmd.Dir = &syscall.SysProcAttr{Credential: cred}, dir
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		if out, err := cmd.CombinedOutput(); err != nil {
			log, _ := os.ReadFile(filepath.Join(dir, "log"))
			t.Fatalf("%s %v: %v\n%s\n%s", name, args, err, out, log)
		}
	}
	data := filepath.Join(dir, "data")
	run("initdb", "-D", data, "-U", "mcpsum", "--auth=trust", "--no-sync", "-E", "UTF8")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	opts := "-c listen_addresses=127.0.0.1 -p " + port + " -c unix_socket_directories=" + dir + " -c fsync=off"
	run("pg_ctl", "-D", data, "-l", filepath.Join(dir, "log"), "-o", opts, "-w", "-t", "60", "start")
	t.Cleanup(func() {
		cmd := exec.Command(filepath.Join(pgbin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop")
		cmd.SysProcAttr, cmd.Dir = &syscall.SysProcAttr{Credential: cred}, dir
		cmd.Run()
	})
	url := fmt.Sprintf("postgresql://mcpsum@127.0.0.1:%s/postgres", port)
	return url, func(sql string) {
		t.Helper()
		out, err := exec.Command(filepath.Join(pgbin, "psql"), "-X", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql).CombinedOutput()
		if err != nil {
			t.Fatalf("psql %q: %v\n%s", sql, err, out)
		}
	}
}

// pgMajor is the major version in /usr/lib/postgresql/N/bin/initdb.
func pgMajor(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}
