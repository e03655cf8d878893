package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/sumlog"
)

// runMigrate: mcpsum-log migrate --dir D --from SPEC --to SPEC.
func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, dir, _ := flags("migrate", stderr, true)
	from := fs.String("from", "", "the storage the log lives in now (what D records; a folder is posix:FOLDER)")
	to := fs.String("to", "", "the empty storage to move it to")
	publish := fs.Int("publish-timeout-secs", 120, "how long to wait for the new storage's signed (and cosigned) checkpoint")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0 // -h: the help is printed
	} else if err != nil || *dir == "" || *from == "" || *to == "" || fs.NArg() > 0 {
		fmt.Fprint(stderr, "mcpsum-log migrate: want --dir D --from SPEC --to SPEC\n")
		return 2
	}
	if _, err := sumlog.ParseStorage(*to); err != nil {
		fmt.Fprintf(stderr, "mcpsum-log migrate: --to: %v\n", err)
		return 2
	}
	live := cli.IsTerminal(stderr)
	last := time.Time{}
	progress := func(stage string, done, total uint64) {
		if !live && done != total {
			return
		}
		if live && done != total && time.Since(last) < 200*time.Millisecond {
			return
		}
		last = time.Now()
		end := "\n"
		if live && done != total {
			end = ""
		}
		if live {
			fmt.Fprint(stderr, "\r\x1b[K")
		}
		fmt.Fprintf(stderr, "%-8s %d/%d%s", stage, done, total, end)
	}
	m, err := sumlog.Migrate(ctx, *dir, *from, *to, sumlog.Options{PublishTimeout: time.Duration(*publish) * time.Second}, progress)
	if err != nil {
		return fail(stderr, "migrate", err)
	}
	fmt.Fprintf(stdout, "migrated %d records from %s to %s\n", m.Records, *from, *to)
	fmt.Fprintf(stdout, "last checkpoint before:\n%s\nfirst checkpoint after:\n%s", m.Before, m.After)
	fmt.Fprintf(stderr, "%s now records %s; serve its tiles from there (the old storage is left as it was)\n", *dir, *to)
	return 0
}
