// Command mcpsum-log runs a transparency log of MCP server surfaces, the
// checksum database mcpsum checks locks against (MCPSUMDB):
//
//	mcpsum-log init  --dir D --origin ORIGIN
//	mcpsum-log add   --dir D --lockfile F [--name N]...
//	mcpsum-log serve --dir D --addr HOST:PORT [--access-log FILE]
//	mcpsum-log version
//
// Exit codes: 0 ok; 1 a surface that differs from the live server or from
// the log's record for its key (nothing appended); 2 usage; 3 could not
// decide (I/O, a server that did not start).
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/internal/verify"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"k8s.io/klog/v2"
)

const usage = `usage:
  mcpsum-log init  --dir D --origin ORIGIN        make a log: signing key (0600), prints the verifier key
  mcpsum-log add   --dir D [--mysql-file F] [--witness-policy P] --lockfile F [--name N]...
                                                  verify entries against their live servers, log one record per key
  mcpsum-log serve --dir D [--mysql-file F] --addr HOST:PORT [--access-log FILE]
                                                  serve checkpoint, tiles and lookups over HTTP
  mcpsum-log version                              print the version and the Go version it was built with
A MySQL/MariaDB DSN comes from MCPSUM_LOG_MYSQL or --mysql-file (--mysql DSN
only without a password: a command line is visible to every user).
`

// version is stamped at release time (-ldflags "-X main.version=v1.2.3",
// scripts/release.sh; Bazel's x_defs).
var version = "devel"

// commands are mcpsum-log's subcommands, for "did you mean".
var commands = []string{"init", "add", "serve", "version"}

func main() {
	quietEngine()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// quietEngine keeps Tessera's own logging (klog) off the terminal: it
// reports what mcpsum-log says itself, through errors.
func quietEngine() {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for k, v := range map[string]string{"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL"} {
		fs.Set(k, v)
	}
	klog.SetOutput(io.Discard)
}

type names []string

func (n *names) String() string     { return strings.Join(*n, ",") }
func (n *names) Set(v string) error { *n = append(*n, v); return nil }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "version" || args[0] == "--version" || args[0] == "-version" {
		if len(args) > 1 {
			fmt.Fprintln(stderr, "mcpsum-log version takes no arguments")
			return 2
		}
		fmt.Fprintf(stdout, "mcpsum-log %s (%s, %s/%s)\n", cli.Version(version), runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return 0
	}
	if err := sumlog.Supported(); err != nil { // Windows: nothing of the log can run
		fmt.Fprintf(stderr, "mcpsum-log: %v\n", err)
		return 3
	}
	fs := flag.NewFlagSet("mcpsum-log "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "the log's folder")
	mysqlFlag := fs.String("mysql", "", "store checkpoint and tiles in this MySQL/MariaDB database (DSN user@tcp(host:3306)/db, with Tessera's schema) instead of D/tiles; a DSN with a password goes in MCPSUM_LOG_MYSQL or --mysql-file")
	mysqlFile := fs.String("mysql-file", "", "read the MySQL/MariaDB DSN (user:password@tcp(host:3306)/db) from this file")
	var err error
	// The DSN once the flags are read; its password is never printed.
	mysqlDSN := new(string)
	dsn := func() bool {
		*mysqlDSN, err = readDSN(*mysqlFlag, *mysqlFile, os.Getenv("MCPSUM_LOG_MYSQL"))
		if err != nil {
			fmt.Fprintf(stderr, "mcpsum-log %s: %v\n", args[0], err)
			return false
		}
		if pw := sumlog.MySQLPassword(*mysqlDSN); pw != "" {
			stdout, stderr = redacting(stdout, pw), redacting(stderr, pw)
		}
		return true
	}
	switch args[0] {
	case "init":
		origin := fs.String("origin", "", "the log's origin (its name in checkpoints), e.g. log.example.com/mcp")
		if fs.Parse(args[1:]) != nil || *dir == "" || *origin == "" {
			fmt.Fprint(stderr, "mcpsum-log init: want --dir D --origin ORIGIN\n")
			return 2
		}
		var vkey string
		if vkey, err = sumlog.Init(*dir, *origin); err == nil {
			fmt.Fprintln(stdout, vkey)
			fmt.Fprintf(stderr, "log made in %s; users set MCPSUMDB=\"%s https://HOST\" (the address mcpsum-log serve listens on)\n", *dir, vkey)
		}
	case "add":
		lf := fs.String("lockfile", "mcp.lock", "the lockfile whose entries to log")
		wp := fs.String("witness-policy", "", "ask the witnesses of this policy file to cosign; publish only checkpoints its quorum cosigned")
		timeout := fs.Int("timeout-secs", 30, "per answer of a server")
		var ns names
		fs.Var(&ns, "name", "an entry to log (repeatable; default: every entry)")
		if fs.Parse(args[1:]) != nil || *dir == "" {
			fmt.Fprint(stderr, "mcpsum-log add: want --dir D --lockfile F [--name N]...\n")
			return 2
		}
		if !dsn() {
			return 2
		}
		o := sumlog.Options{MySQL: *mysqlDSN}
		if *wp != "" {
			if o.WitnessPolicy, err = os.ReadFile(*wp); err != nil {
				fmt.Fprintf(stderr, "mcpsum-log add: --witness-policy: %v\n", err)
				return 2
			}
		}
		return add(ctx, *dir, o, *lf, ns, time.Duration(*timeout)*time.Second, stdout, stderr)
	case "serve":
		addr := fs.String("addr", "127.0.0.1:8080", "HOST:PORT to listen on")
		accessLog := fs.String("access-log", "", "file to append one line per request to (default: stderr)")
		if fs.Parse(args[1:]) != nil || *dir == "" {
			fmt.Fprint(stderr, "mcpsum-log serve: want --dir D --addr HOST:PORT\n")
			return 2
		}
		if !dsn() {
			return 2
		}
		err = serve(ctx, *dir, sumlog.Options{MySQL: *mysqlDSN}, *addr, *accessLog, stderr)
	default:
		fmt.Fprintf(stderr, "mcpsum-log: unknown command %q\n", args[0])
		if near, ok := cli.Closest(args[0], commands); ok {
			fmt.Fprintf(stderr, "mcpsum-log: hint: did you mean 'mcpsum-log %s'?\n", near)
		}
		fmt.Fprint(stderr, usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpsum-log %s: %v\n", args[0], err)
		return 3
	}
	return 0
}

// add verifies the entries against their live servers, as mcpsum verify
// does, and logs every keyed one that matches.
func add(ctx context.Context, dir string, st sumlog.Options, lf string, ns []string, timeout time.Duration, stdout, stderr io.Writer) int {
	f, err := lockfile.Load(lf)
	if err != nil {
		fmt.Fprintf(stderr, "mcpsum-log add: %v\n", err)
		var ie *lockfile.IntegrityError
		if errors.As(err, &ie) {
			return 1
		}
		return 3
	}
	if len(ns) == 0 {
		for n := range f.Servers {
			ns = append(ns, n)
		}
		sort.Strings(ns)
	}
	var keyed []string
	var entries []sumlog.Entry
	for _, n := range ns {
		e, ok := f.Servers[n]
		if !ok {
			fmt.Fprintf(stderr, "mcpsum-log add: %s has no server %q\n", lf, n)
			return 2
		}
		key, ok := launch.LogKey(e)
		if !ok {
			fmt.Fprintf(stderr, "skip   %s: private (its command pins no registry package at an exact version)\n", n)
			continue
		}
		keyed = append(keyed, n)
		entries = append(entries, sumlog.Entry{Key: key, Surface: launch.LogSurface(e)})
	}
	if len(keyed) == 0 {
		fmt.Fprintln(stderr, "mcpsum-log add: no entry has a key; nothing to log")
		return 0
	}
	rep := verify.Verify(ctx, f, keyed, false, launch.Options{Lockfile: lf, Timeout: timeout})
	for _, s := range rep.Servers {
		switch s.Status {
		case verify.StatusOK, verify.StatusInformational:
		case verify.StatusDrift:
			fmt.Fprintf(stderr, "mcpsum-log add: %s: the live server differs from %s (%d findings); nothing was appended: re-lock it and review the change first\n", s.Name, lf, len(s.Findings))
			return 1
		default:
			fmt.Fprintf(stderr, "mcpsum-log add: %s: could not be checked: %v; nothing was appended\n", s.Name, s.Error)
			return 3
		}
	}
	added, err := sumlog.Add(ctx, dir, st, entries)
	if err != nil {
		fmt.Fprintf(stderr, "mcpsum-log add: %v\n", err)
		var ce *sumlog.ConflictError
		if errors.As(err, &ce) {
			return 1
		}
		return 3
	}
	for i, a := range added {
		verb := "logged"
		if !a.New {
			verb = "already"
		}
		fmt.Fprintf(stdout, "%-7s %s %s (record %d)\n", verb, keyed[i], a.Key, a.Index)
	}
	return 0
}

func serve(ctx context.Context, dir string, st sumlog.Options, addr, accessLog string, stderr io.Writer) error {
	if _, err := sumlog.Verifier(dir); err != nil {
		return err
	}
	var access io.Writer = stderr
	if accessLog != "" {
		f, err := statefile.OpenAppend(accessLog)
		if err != nil {
			return fmt.Errorf("access log: %w", err)
		}
		defer f.Close()
		access = f
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "serving %s on http://%s\n", dir, ln.Addr())
	h, closeStorage, err := sumlog.Handler(ctx, dir, st, access)
	if err != nil {
		return err
	}
	defer closeStorage()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// readDSN is the MySQL DSN from the one source given: --mysql (refused
// with a password, which every user of the machine could read in ps),
// --mysql-file or MCPSUM_LOG_MYSQL. "" is the folder storage.
func readDSN(flagDSN, file, env string) (string, error) {
	n := 0
	for _, v := range []string{flagDSN, file, env} {
		if v != "" {
			n++
		}
	}
	switch {
	case n > 1:
		return "", errors.New("the MySQL DSN is given twice (--mysql, --mysql-file, MCPSUM_LOG_MYSQL): give it once")
	case flagDSN != "" && sumlog.MySQLPassword(flagDSN) != "":
		return "", errors.New("--mysql: the DSN holds a password, and a command line is visible to every user of this machine; put the DSN in MCPSUM_LOG_MYSQL or in a file only you can read (--mysql-file FILE)")
	case flagDSN != "":
		return flagDSN, nil
	case file != "":
		b, err := safeio.ReadRegular(file, "MySQL DSN file", 4<<10)
		if err != nil {
			return "", fmt.Errorf("--mysql-file: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	return env, nil
}

// redacting is w with every occurrence of secret replaced by "***".
func redacting(w io.Writer, secret string) io.Writer {
	return &redactor{w: w, secret: []byte(secret)}
}

type redactor struct {
	w      io.Writer
	secret []byte
}

func (r *redactor) Write(p []byte) (int, error) {
	if _, err := r.w.Write(bytes.ReplaceAll(p, r.secret, []byte("***"))); err != nil {
		return 0, err
	}
	return len(p), nil
}
