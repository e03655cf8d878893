package pgwire

import (
	"strings"
	"testing"
	"time"
)

func TestParseURL(t *testing.T) {
	for _, c := range []struct {
		dsn  string
		want Config
	}{
		{"postgresql://mcpsum@127.0.0.1:5433/postgres",
			Config{Network: "tcp", Addr: "127.0.0.1:5433", Host: "127.0.0.1", User: "mcpsum", Database: "postgres", SSLMode: "prefer"}},
		{"postgres://u:p%40ss@db.example/app?sslmode=verify-full&sslrootcert=/ca.pem&connect_timeout=5&application_name=mcpsum-serve",
			Config{Network: "tcp", Addr: "db.example:5432", Host: "db.example", User: "u", Password: "p@ss", Database: "app",
				SSLMode: "verify-full", SSLRootCert: "/ca.pem", AppName: "mcpsum-serve", Timeout: 5 * time.Second}},
		{"postgres://u@/app?host=/run/pg&port=6000",
			Config{Network: "unix", Addr: "/run/pg/.s.PGSQL.6000", Host: "/run/pg", User: "u", Database: "app", SSLMode: "prefer"}},
		{"postgres://[::1]:7000/x?user=v&password=w&dbname=y&sslmode=disable",
			Config{Network: "tcp", Addr: "[::1]:7000", Host: "::1", User: "v", Password: "w", Database: "y", SSLMode: "disable"}},
		{"postgres://u@h", // no database: the user's
			Config{Network: "tcp", Addr: "h:5432", Host: "h", User: "u", Database: "u", SSLMode: "prefer"}},
	} {
		got, err := ParseURL(c.dsn)
		if err != nil {
			t.Errorf("%s: %v", c.dsn, err)
			continue
		}
		if *got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.dsn, *got, c.want)
		}
	}
}

// TestParseURLRefuses: what the client cannot honour fails, naming the
// part, and the message never holds the password.
func TestParseURLRefuses(t *testing.T) {
	for _, c := range []struct{ dsn, want string }{
		{"mysql://u:hunter2@h/db", "not a postgres://"},
		{"host=h user=u password=hunter2", "not a postgres://"},
		{"postgres://u:hunter2@h/db?sslmode=allow", `sslmode "allow"`},
		{"postgres://u:hunter2@h/db?pool_max_conns=4", `unknown parameter "pool_max_conns"`},
		{"postgres://u:hunter2@h/db?target_session_attrs=any", `unknown parameter "target_session_attrs"`},
		{"postgres://u:hunter2@h/db?sslmode=require&sslmode=disable", `"sslmode" is given 2 times`},
		{"postgres://u:hunter2@h1,h2/db", "several hosts"},
		{"postgres://u:hunter2@h:99999/db", `port "99999"`},
		{"postgres://u:hunter2@h/db?connect_timeout=soon", `connect_timeout "soon"`},
		{"postgres://u:hunter2@h/db?application_name=a%00b", "NUL"},
	} {
		_, err := ParseURL(c.dsn)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %q", c.dsn, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: the error holds the password: %v", c.dsn, err)
		}
	}
}
