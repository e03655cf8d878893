// Command mcpsum-log runs a transparency log of MCP server surfaces, the
// checksum database mcpsum checks locks against (MCPSUMDB), and watches one:
//
//	mcpsum-log init    --dir D --origin ORIGIN [--storage SPEC]
//	mcpsum-log add     --dir D --lockfile F [--name N]... [--witness-policy P]
//	mcpsum-log serve   --dir D --addr HOST:PORT [--access-log FILE]
//	mcpsum-log migrate --dir D --from SPEC --to SPEC
//	mcpsum-log monitor --log "KEY URL" [--watch PATTERN]... [--json] [--once]
//	mcpsum-log observe --dir D --list FILE
//	mcpsum-log version
//
// One file per subcommand (init.go, add.go, …); this one dispatches.
// Exit codes: 0 ok; 1 a surface that differs from the live server or from
// the log's record for its key (nothing appended), or a log that is not
// consistent with itself; 2 usage; 3 could not decide (I/O, a server that
// did not start); monitor: 4 new records for watched keys.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/sandbox"
	"github.com/mcpsum/mcpsum/internal/sumlog"
	"k8s.io/klog/v2"
)

// subcommand is the help of one of mcpsum-log's commands (each runs from
// a file of its own): its arguments, what it does and examples (its -h;
// TestHelp holds the examples to its flags).
type subcommand struct {
	name, args, short string
	examples          []string
}

var subcommands = []subcommand{
	{"init", "--dir D --origin ORIGIN [--storage SPEC]", "make a log: signing key (0600), prints the verifier key",
		[]string{"mcpsum-log init --dir /srv/mcplog --origin log.example.com/mcp"}},
	{"add", "--dir D --lockfile F [--name N]... [--witness-policy P]", "verify entries against their live servers, log one record per key",
		[]string{"mcpsum-log add --dir /srv/mcplog --lockfile mcp.lock", "mcpsum-log add --dir /srv/mcplog --lockfile mcp.lock --name filesystem --name memory"}},
	{"serve", "--dir D --addr HOST:PORT [--access-log FILE]", "serve checkpoint, tiles and lookups over HTTP",
		[]string{"mcpsum-log serve --dir /srv/mcplog --addr 127.0.0.1:8080 --access-log /var/log/mcplog.log"}},
	{"migrate", "--dir D --from SPEC --to SPEC", "move the log to another storage (same origin, key and tree)",
		[]string{"mcpsum-log migrate --dir /srv/mcplog --from posix --to posix:/mnt/big/mcplog"}},
	{"monitor", `--log "KEY URL" [--watch PATTERN]... [--json] [--once]`, "follow a log: check it only grows, report new records for watched keys",
		[]string{`mcpsum-log monitor --log "$MCPSUMDB" --watch 'npm/@modelcontextprotocol/*' --once`}},
	{"observe", "--dir D --list FILE", "lock each listed package version in the sandbox and log its surface",
		[]string{"mcpsum-log observe --dir /srv/mcplog --list versions.txt"}},
}

// placeholders name the arguments of the flags in the help.
var placeholders = map[string]string{"dir": "D", "origin": "ORIGIN", "storage": "SPEC", "lockfile": "F", "name": "N",
	"witness-policy": "P", "timeout-secs": "N", "publish-timeout-secs": "N", "start-timeout-secs": "N", "interval-secs": "N",
	"addr": "HOST:PORT", "access-log": "FILE", "from": "SPEC", "to": "SPEC", "log": `"KEY URL"`, "watch": "PATTERN",
	"state": "FILE", "list": "FILE"}

const storageHelp = `storage SPEC: posix (D/tiles, the default), posix:/FOLDER, or
  s3://BUCKET[/PREFIX][?endpoint=URL&region=R&dsn-file=FILE] (Tessera's AWS
  driver; the database DSN in MCPSUM_LOG_DSN or the dsn-file)
`

// usage is mcpsum-log's help: every command, what it does, and storage.
var usage = func() string {
	var b strings.Builder
	b.WriteString("usage:\n")
	for _, c := range subcommands {
		fmt.Fprintf(&b, "  mcpsum-log %-7s %s\n                     %s\n", c.name, c.args, c.short)
	}
	b.WriteString("  mcpsum-log version\n                     print the version and the Go version it was built with\n\n")
	return b.String() + storageHelp
}()

// version is stamped at release time (-ldflags "-X main.version=v1.2.3",
// scripts/release.sh; Bazel's x_defs).
var version = "devel"

// commands run the subcommands, by name.
var commands = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) int{
	"init":    runInit,
	"add":     runAdd,
	"serve":   runServe,
	"migrate": runMigrate,
	"monitor": runMonitor,
	"observe": runObserve,
}

func main() {
	// observe runs servers in the sandbox, which re-executes this binary
	// as its pid 1: that hidden stage runs before anything else.
	if handled, code := sandbox.Helper(os.Args[1:]); handled {
		os.Exit(code)
	}
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
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "mcpsum-log: unknown command %q\n", args[0])
		known := []string{"version"}
		for c := range commands {
			known = append(known, c)
		}
		sort.Strings(known)
		if near, ok := cli.Closest(args[0], known); ok {
			fmt.Fprintf(stderr, "mcpsum-log: hint: did you mean 'mcpsum-log %s'?\n", near)
		}
		fmt.Fprint(stderr, usage)
		return 2
	}
	if args[0] != "monitor" { // monitor only reads a log over HTTP: it runs anywhere
		if err := sumlog.Supported(); err != nil { // Windows: nothing of the log can run
			fmt.Fprintf(stderr, "mcpsum-log: %v\n", err)
			return 3
		}
	}
	return cmd(ctx, args[1:], stdout, stderr)
}

type names []string

func (n *names) String() string     { return strings.Join(*n, ",") }
func (n *names) Set(v string) error { *n = append(*n, v); return nil }

// flags is a subcommand's flag set, with --dir and --storage when it works
// on a log folder.
func flags(name string, stderr io.Writer, withLog bool) (*flag.FlagSet, *string, *string) {
	fs := flag.NewFlagSet("mcpsum-log "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	i := slices.IndexFunc(subcommands, func(c subcommand) bool { return c.name == name })
	c := subcommands[i]
	fs.Usage = func() {
		help := cli.FlagHelp(fs, "mcpsum-log "+name+" "+c.args, c.short, placeholders, c.examples)
		if withLog {
			help += "\n" + storageHelp
		}
		fmt.Fprint(stderr, help)
	}
	if !withLog {
		return fs, nil, nil
	}
	dir := fs.String("dir", "", "the log's folder (signing key, storage record, witness policy)")
	storage := fs.String("storage", os.Getenv("MCPSUM_LOG_STORAGE"), "where the log's checkpoint, tiles and lookups live (default: what D records, else D/tiles)")
	return fs, dir, storage
}

// fail prints err for the subcommand, each next step on a line of its own
// (mcpsum-log: hint: …), and returns its exit code: 1 for a surface that
// differs from the log's, 3 otherwise.
func fail(stderr io.Writer, name string, err error) int {
	fmt.Fprintf(stderr, "mcpsum-log %s: %s\n", name, hint.Lines(err, "mcpsum-log: "))
	var ce *sumlog.ConflictError
	if errors.As(err, &ce) {
		return 1
	}
	return 3
}
