package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/mcpsum/mcpsum/internal/sumlog"
)

// runInit: mcpsum-log init --dir D --origin ORIGIN [--storage SPEC].
func runInit(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, dir, storage := flags("init", stderr, true)
	origin := fs.String("origin", "", "the log's origin (its name in checkpoints), e.g. log.example.com/mcp")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0 // -h: the help is printed
	} else if err != nil || *dir == "" || *origin == "" || fs.NArg() > 0 {
		fmt.Fprint(stderr, "mcpsum-log init: want --dir D --origin ORIGIN [--storage SPEC]\n")
		return 2
	}
	vkey, err := sumlog.InitIn(ctx, *dir, *origin, sumlog.Options{Storage: *storage})
	if err != nil {
		return fail(stderr, "init", err)
	}
	fmt.Fprintln(stdout, vkey)
	fmt.Fprintf(stderr, "log made in %s; users set MCPSUMDB=\"%s https://HOST\" (where its tiles are served: mcpsum-log serve, or any static host)\n", *dir, vkey)
	return 0
}
