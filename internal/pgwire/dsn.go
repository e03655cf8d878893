package pgwire

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config says where and how to connect. ParseURL makes one.
type Config struct {
	Network     string // "tcp" or "unix"
	Addr        string // host:port, or the socket's path
	Host        string // the host name TLS verifies (verify-full), or the socket's folder
	User        string
	Password    string
	Database    string
	SSLMode     string // disable, prefer, require, verify-ca, verify-full
	SSLRootCert string // a PEM file of trusted CAs, or "system"
	AppName     string
	Timeout     time.Duration // connect_timeout: 0 waits as long as the caller's context
}

// params are the URL query parameters ParseURL knows; any other is an
// error rather than silently ignored.
var params = []string{"host", "port", "dbname", "user", "password", "sslmode", "sslrootcert", "connect_timeout", "application_name"}

var sslModes = []string{"disable", "prefer", "require", "verify-ca", "verify-full"}

// ParseURL reads a postgres:// or postgresql:// URL:
// postgres://USER:PASSWORD@HOST:PORT/DBNAME?sslmode=...&... . host=/folder
// in the query names a Unix socket's folder. Errors name the part that is
// wrong and never quote the URL (it may hold a password).
func ParseURL(dsn string) (*Config, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, fmt.Errorf("not a postgres:// URL (it does not parse as a URL)")
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return nil, fmt.Errorf("not a postgres:// or postgresql:// URL")
	}
	if u.Opaque != "" || u.Fragment != "" {
		return nil, fmt.Errorf("a postgres:// URL has no opaque part or #fragment")
	}
	cfg := &Config{SSLMode: "prefer"}
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Password, _ = u.User.Password()
	}
	host, port := u.Hostname(), u.Port()
	if strings.Contains(u.Host, ",") {
		return nil, fmt.Errorf("the URL names several hosts; give one")
	}
	cfg.Database = strings.TrimPrefix(u.Path, "/")
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, fmt.Errorf("the URL's query does not parse")
	}
	timeout := ""
	for k, v := range q {
		if !slices.Contains(params, k) {
			return nil, fmt.Errorf("unknown parameter %q in the postgres:// URL (known: %s)", clean(k), strings.Join(params, ", "))
		}
		if len(v) != 1 {
			return nil, fmt.Errorf("parameter %q is given %d times in the postgres:// URL", k, len(v))
		}
		switch val := v[0]; k {
		case "host":
			host = val
		case "port":
			port = val
		case "dbname":
			cfg.Database = val
		case "user":
			cfg.User = val
		case "password":
			cfg.Password = val
		case "sslmode":
			cfg.SSLMode = val
		case "sslrootcert":
			cfg.SSLRootCert = val
		case "connect_timeout":
			timeout = val
		case "application_name":
			cfg.AppName = val
		}
	}
	if !slices.Contains(sslModes, cfg.SSLMode) {
		return nil, fmt.Errorf("sslmode %q is not one of %s", clean(cfg.SSLMode), strings.Join(sslModes, ", "))
	}
	if timeout != "" {
		n, err := strconv.Atoi(timeout)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("connect_timeout %q is not a whole number of seconds", clean(timeout))
		}
		cfg.Timeout = time.Duration(n) * time.Second
	}
	if port == "" {
		port = "5432"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, fmt.Errorf("port %q is not a port number", clean(port))
	}
	if cfg.User == "" {
		cfg.User = osUser()
		if cfg.User == "" {
			return nil, fmt.Errorf("the URL names no user, and the user running mcpsum has no name")
		}
	}
	if cfg.Database == "" {
		cfg.Database = cfg.User
	}
	for _, s := range []string{cfg.User, cfg.Database, cfg.AppName, cfg.Password} {
		if strings.IndexByte(s, 0) >= 0 {
			return nil, fmt.Errorf("the URL's user, password, database or application_name holds a NUL byte")
		}
	}
	if host == "" {
		host = defaultHost(port)
	}
	if strings.HasPrefix(host, "/") {
		cfg.Network, cfg.Host, cfg.Addr = "unix", host, filepath.Join(host, ".s.PGSQL."+port)
	} else {
		cfg.Network, cfg.Host, cfg.Addr = "tcp", host, net.JoinHostPort(host, port)
	}
	return cfg, nil
}

// defaultHost is libpq's: the local server's socket when there is one,
// else localhost.
func defaultHost(port string) string {
	for _, dir := range []string{"/var/run/postgresql", "/tmp"} {
		if _, err := os.Stat(filepath.Join(dir, ".s.PGSQL."+port)); err == nil {
			return dir
		}
	}
	return "localhost"
}

func osUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}

// String names the server without credentials, for messages.
func (cfg *Config) String() string {
	return fmt.Sprintf("%s/%s", cfg.Addr, cfg.Database)
}
