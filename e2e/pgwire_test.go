//go:build unix

package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/pgstate"
	"github.com/mcpsum/mcpsum/internal/pgwire"
)

// TestPgwire runs mcpsum's PostgreSQL client (internal/pgwire) against a
// real PostgreSQL: text, bytea (hex and escape output) and NULL both ways,
// errors with their SQLSTATE, transactions, a pool shared by goroutines,
// cancellation, connections the server ended, and Close; then, with the
// server reconfigured, SCRAM-SHA-256 (a password SASLprep changes), md5,
// cleartext only over TLS or a Unix socket, and TLS verify-full and
// verify-ca against a CA made here; and internal/pgstate over all of it.
func TestPgwire(t *testing.T) {
	t.Parallel()
	base, psql := startPostgres(t)
	ctx := context.Background()
	dsn := func(user, params string) string {
		u, _ := url.Parse(base)
		u.User = url.User(user)
		if strings.Contains(user, ":") {
			name, pw, _ := strings.Cut(user, ":")
			u.User = url.UserPassword(name, pw)
		}
		u.RawQuery = params
		return u.String()
	}
	connect := func(s string) (*pgwire.Conn, error) {
		t.Helper()
		cfg, err := pgwire.ParseURL(s)
		if err != nil {
			t.Fatal(err)
		}
		return pgwire.Connect(ctx, cfg)
	}
	cfg, err := pgwire.ParseURL(dsn("mcpsum", "application_name=pgwire-e2e&connect_timeout=60"))
	if err != nil {
		t.Fatal(err)
	}
	pool := pgwire.NewPool(cfg, 4)
	defer pool.Close()

	t.Run("values", func(t *testing.T) {
		all := make([]byte, 256)
		for i := range all {
			all[i] = byte(i)
		}
		row, err := pool.QueryRow(ctx, `SELECT $1::text, $2::bytea, $3::text IS NULL, $4::bigint, $5::bytea, NULL::bytea, ''::text, $6::bytea IS NULL`,
			"héllo 'quoted' \\ $1", all, nil, int64(-42), []byte{}, []byte(nil))
		if err != nil {
			t.Fatal(err)
		}
		if string(row[0]) != "héllo 'quoted' \\ $1" || string(row[1]) != string(all) || string(row[2]) != "t" || string(row[3]) != "-42" {
			t.Fatalf("row %q", row[:4])
		}
		if row[4] == nil || len(row[4]) != 0 || row[5] != nil || row[6] == nil || len(row[6]) != 0 || string(row[7]) != "t" {
			t.Fatalf("empty bytea %#v, NULL %#v, empty text %#v, nil []byte NULL %q", row[4], row[5], row[6], row[7])
		}
		c, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Release(c)
		if _, err := c.Exec(ctx, "SET bytea_output = escape"); err != nil {
			t.Fatal(err)
		}
		row, err = c.QueryRow(ctx, `SELECT $1::bytea`, all)
		if err != nil || string(row[0]) != string(all) {
			t.Fatalf("bytea in escape output: %q, %v", row, err)
		}
		c.Exec(ctx, "RESET bytea_output")
		// Each statement is parsed once per connection, under a name; one
		// the server lost is parsed afresh after its error.
		for i := range 3 {
			if row, err := c.QueryRow(ctx, `SELECT $1::text || 'x'`, "a"); err != nil || string(row[0]) != "ax" {
				t.Fatalf("run %d of a named statement: %q, %v", i, row, err)
			}
		}
		if row, err := c.QueryRow(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE statement = $1`, `SELECT $1::text || 'x'`); err != nil || string(row[0]) != "1" {
			t.Fatalf("the statement's prepared copies: %q, %v", row, err)
		}
		c.Exec(ctx, "DEALLOCATE ALL")
		if _, err := c.QueryRow(ctx, `SELECT $1::text || 'x'`, "a"); err == nil || !strings.Contains(err.Error(), "26000") {
			t.Fatalf("a deallocated statement: %v", err)
		}
		if row, err := c.QueryRow(ctx, `SELECT $1::text || 'x'`, "b"); err != nil || string(row[0]) != "bx" {
			t.Fatalf("after DEALLOCATE: %q, %v", row, err)
		}
		tag, err := c.Exec(ctx, "CREATE TABLE kv (k text PRIMARY KEY, v bytea); INSERT INTO kv VALUES ('a', '\\x00'), ('b', NULL)")
		if err != nil || tag != "INSERT 0 2" {
			t.Fatalf("several statements: %q, %v", tag, err)
		}
		if _, err := c.QueryRow(ctx, "SELECT v FROM kv WHERE k = $1", "none"); !errors.Is(err, pgwire.ErrNoRows) {
			t.Fatalf("no row: %v", err)
		}
	})

	t.Run("errors", func(t *testing.T) {
		_, err := pool.Exec(ctx, "SELECT * FROM no_such_table WHERE x = $1", "y")
		var pe *pgwire.Error
		if !errors.As(err, &pe) || pe.Code != "42P01" || !strings.Contains(err.Error(), `relation "no_such_table" does not exist (SQLSTATE 42P01)`) {
			t.Fatalf("error %v", err)
		}
		if _, err := pool.Exec(ctx, "SELECT 1"); err != nil { // the connection survived its error
			t.Fatal(err)
		}
	})

	t.Run("transactions", func(t *testing.T) {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "SELECT 1 / $1::int", "0"); err == nil || !strings.Contains(err.Error(), "22012") {
			t.Fatalf("division by zero: %v", err)
		}
		if err := tx.Commit(ctx); !errors.Is(err, pgwire.ErrTxRolledBack) {
			t.Fatalf("commit of a failed transaction: %v", err)
		}
		c, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "BEGIN"); err != nil || c.TxStatus() != 'T' {
			t.Fatalf("BEGIN: status %c, %v", c.TxStatus(), err)
		}
		pool.Release(c) // left inside a transaction: the pool must not reuse it
		if _, err := c.Exec(ctx, "SELECT 1"); err == nil {
			t.Fatal("a connection released inside a transaction was kept")
		}
		psql("CREATE TABLE counter (n bigint); INSERT INTO counter VALUES (0)")
		// Read, then write, under an advisory lock: only a pool that keeps
		// each transaction on its own connection counts every increment.
		var wg sync.WaitGroup
		errs := make(chan error, 80)
		for range 8 {
			wg.Go(func() {
				for range 10 {
					tx, err := pool.Begin(ctx)
					if err != nil {
						errs <- err
						return
					}
					tx.Exec(ctx, "SELECT pg_advisory_xact_lock(1)")
					row, err := tx.QueryRow(ctx, "SELECT n FROM counter")
					if err == nil {
						_, err = tx.Exec(ctx, "UPDATE counter SET n = $1::bigint + 1", string(row[0]))
					}
					if err == nil {
						err = tx.Commit(ctx)
					}
					tx.Rollback(ctx)
					if err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if row, err := pool.QueryRow(ctx, "SELECT n FROM counter"); err != nil || string(row[0]) != "80" {
			t.Fatalf("counter %q, %v", row, err)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		c, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithCancel(ctx)
		go func() { // cancel once the server runs the statement
			for cctx.Err() == nil {
				row, err := pool.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)' AND state = 'active'")
				if err == nil && string(row[0]) == "1" {
					cancel()
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		_, err = c.Exec(cctx, "SELECT pg_sleep(600)")
		pool.Release(c)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
		if _, err := c.Exec(ctx, "SELECT 1"); err == nil {
			t.Fatal("the canceled connection is still used")
		}
		if _, err := pool.Exec(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("server ends idle connections", func(t *testing.T) {
		admin, err := connect(dsn("mcpsum", "application_name=admin"))
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'pgwire-e2e' AND query NOT LIKE '%pg_sleep%'"); err != nil {
			t.Fatal(err)
		}
		waitCount(t, admin, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgwire-e2e' AND query NOT LIKE '%pg_sleep%'", "0")
		for range 4 {
			if _, err := pool.Exec(ctx, "SELECT 1"); err != nil {
				t.Fatalf("a pooled connection the server ended was used: %v", err)
			}
		}
	})

	// Reconfigure the server: users that authenticate with SCRAM, md5 and a
	// cleartext password, and TLS with a certificate for localhost from a
	// CA made here.
	row, err := pool.QueryRow(ctx, "SELECT current_setting('data_directory'), current_setting('unix_socket_directories')")
	if err != nil {
		t.Fatal(err)
	}
	data, sockdir := string(row[0]), string(row[1])
	psql("CREATE ROLE scram_u LOGIN PASSWORD '\ufb01x\u00aded-pw'; GRANT ALL ON SCHEMA public TO scram_u")
	psql("SET password_encryption = 'md5'; CREATE ROLE md5_u LOGIN PASSWORD 'md5-pw'")
	psql("CREATE ROLE clear_u LOGIN PASSWORD 'clear-pw'")
	caPEM, otherCA := writeServerCert(t, data)
	writeOwned(t, data, "pg_hba.conf", `local all clear_u password
local all all trust
host all clear_u 127.0.0.1/32 password
host all scram_u 127.0.0.1/32 scram-sha-256
host all md5_u 127.0.0.1/32 md5
host all all 127.0.0.1/32 trust
`, 0o600)
	for _, sql := range []string{"ALTER SYSTEM SET ssl = on", "SELECT pg_reload_conf()"} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) { // the reload is asynchronous
		_, err1 := connect(dsn("md5_u:wrong", "sslmode=disable"))
		c, err2 := connect(dsn("mcpsum", "sslmode=require"))
		if err1 != nil && err2 == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not take its new configuration: %v, %v", err1, err2)
		}
	}

	ca := "sslrootcert=" + url.QueryEscape(caPEM)
	for _, c := range []struct {
		name, dsn string
		tls       bool
		want      string // in the error; "" for success
	}{
		{"SCRAM", dsn("scram_u:\ufb01x\u00aded-pw", "sslmode=disable"), false, ""},
		{"SCRAM with the password SASLprep makes of it", dsn("scram_u:fixed-pw", "sslmode=disable"), false, ""},
		{"SCRAM with a wrong password", dsn("scram_u:wrong-pw", "sslmode=disable"), false, `password authentication failed for user "scram_u" (SQLSTATE 28P01)`},
		{"md5", dsn("md5_u:md5-pw", "sslmode=disable"), false, ""},
		{"md5 with a wrong password", dsn("md5_u:wrong-pw", "sslmode=disable"), false, "SQLSTATE 28P01"},
		{"cleartext over TCP refused", dsn("clear_u:clear-pw", "sslmode=disable"), false, "cleartext over an unencrypted connection; refused"},
		{"cleartext over unverified TLS refused", dsn("clear_u:clear-pw", "sslmode=require"), false, "cleartext over TLS whose certificate was not verified (sslmode=require); refused"},
		{"cleartext over verified TLS", dsn("clear_u:clear-pw", "sslmode=verify-ca&"+ca), true, ""},
		{"cleartext over a Unix socket", dsn("clear_u:clear-pw", "host="+url.QueryEscape(sockdir)), false, ""},
		{"prefer takes TLS", dsn("mcpsum", ""), true, ""},
		{"verify-full", strings.Replace(dsn("scram_u:fixed-pw", "sslmode=verify-full&"+ca), "127.0.0.1", "localhost", 1), true, ""},
		{"verify-full, name not in the certificate", dsn("scram_u:fixed-pw", "sslmode=verify-full&"+ca), false, "doesn't contain any IP SANs"},
		{"verify-ca, name not checked", dsn("scram_u:fixed-pw", "sslmode=verify-ca&"+ca), true, ""},
		{"verify-ca, another CA", dsn("scram_u:fixed-pw", "sslmode=verify-ca&sslrootcert="+url.QueryEscape(otherCA)), false, "certificate signed by unknown authority"},
		{"require with sslrootcert verifies", dsn("scram_u:fixed-pw", "sslmode=require&sslrootcert="+url.QueryEscape(otherCA)), false, "certificate signed by unknown authority"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := connect(c.dsn)
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %v, want one with %q", err, c.want)
				}
				if strings.Contains(err.Error(), "-pw") {
					t.Fatalf("the error holds the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if conn.TLS() != c.tls {
				t.Fatalf("TLS %v, want %v", conn.TLS(), c.tls)
			}
			row, err := conn.QueryRow(ctx, "SELECT (SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid())::text")
			if err != nil || string(row[0]) != fmt.Sprint(c.tls) {
				t.Fatalf("server's view %q, %v", row, err)
			}
		})
	}

	t.Run("pgstate over verify-full and SCRAM", func(t *testing.T) {
		db, err := pgstate.Open(ctx, strings.Replace(dsn("scram_u:fixed-pw", "sslmode=verify-full&"+ca), "127.0.0.1", "localhost", 1))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Read("s1"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("read of a new session: %v", err)
		}
		doc := []byte("{\"taint\":\"\x00\xff\"}")
		if err := db.Change("s1", func(cur []byte, err error) ([]byte, error) { return doc, nil }); err != nil {
			t.Fatal(err)
		}
		if got, err := db.Read("s1"); err != nil || string(got) != string(doc) {
			t.Fatalf("read %q, %v", got, err)
		}
		k1, err1 := db.ApprovalKey()
		k2, err2 := db.ApprovalKey()
		if err1 != nil || err2 != nil || len(k1) != 32 || string(k1) != string(k2) {
			t.Fatalf("approval key %x %x: %v %v", k1, k2, err1, err2)
		}
	})

	t.Run("close", func(t *testing.T) {
		pool.Close()
		if _, err := pool.Exec(ctx, "SELECT 1"); !errors.Is(err, pgwire.ErrClosed) {
			t.Fatalf("after Close: %v", err)
		}
		admin, err := connect(dsn("mcpsum", "application_name=admin"))
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		// pg_sleep's backend of "cancel" sleeps on: the server sees its
		// client gone only when it answers.
		waitCount(t, admin, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgwire-e2e' AND query NOT LIKE '%pg_sleep%'", "0")
	})
}

// waitCount polls sql until it returns want (the server notices a closed
// connection asynchronously).
func waitCount(t *testing.T, c *pgwire.Conn, sql, want string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		row, err := c.QueryRow(context.Background(), sql)
		if err != nil {
			t.Fatal(err)
		}
		if string(row[0]) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s, want %s", sql, row[0], want)
		}
	}
}

// writeServerCert makes a CA and a certificate for localhost it signs,
// writes the certificate and key as the server's (in the data folder,
// owned by the server's user), and returns the CA's PEM file and another
// CA's.
func writeServerCert(t *testing.T, data string) (caFile, otherFile string) {
	t.Helper()
	newCA := func(name string) (*x509.Certificate, *ecdsa.PrivateKey, string) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			t.Fatal(err)
		}
		cert, _ := x509.ParseCertificate(der)
		file := filepath.Join(t.TempDir(), name+".pem")
		os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
		return cert, key, file
	}
	ca, caKey, caFile := newCA("mcpsum test CA")
	_, _, otherFile = newCA("another CA")
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"}, DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	writeOwned(t, data, "server.crt", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), 0o644)
	writeOwned(t, data, "server.key", string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})), 0o600)
	return caFile, otherFile
}

// writeOwned writes a file into the data folder as the server's user owns it.
func writeOwned(t *testing.T, data, name, content string, mode os.FileMode) {
	t.Helper()
	fi, err := os.Stat(data)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(data, name)
	if err := os.WriteFile(file, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if err := os.Chown(file, int(st.Uid), int(st.Gid)); err != nil {
		t.Fatal(err)
	}
	os.Chmod(file, mode)
}

// TestServeStateURLRefused: serve refuses a --state URL its PostgreSQL
// client cannot honour as written before it starts anything (usage, exit
// 2), naming the parameter and never the password.
func TestServeStateURLRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ url, want string }{
		{"postgres://u:hunter2@127.0.0.1:1/db?pool_max_conns=4", `--state postgres://127.0.0.1:1/db: unknown parameter "pool_max_conns" in the postgres:// URL (known: host, port, dbname, user, password, sslmode, sslrootcert, connect_timeout, application_name)`},
		{"postgresql://u:hunter2@127.0.0.1:1/db?sslmode=allow", `sslmode "allow" is not one of disable, prefer, require, verify-ca, verify-full`},
	} {
		_, stderr, code := mcpsum(t, dir, nil, "serve", "--lockfile", filepath.Join(dir, "no.lock"), "--state", c.url)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "hunter2") {
			t.Errorf("serve --state %s: exit %d, stderr %q; want 2 and %q", c.url, code, stderr, c.want)
		}
	}
}
