package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/sumlog"
)

// runServe: mcpsum-log serve --dir D --addr HOST:PORT [--access-log FILE].
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, dir, storage := flags("serve", stderr, true)
	addr := fs.String("addr", "127.0.0.1:8080", "HOST:PORT to listen on")
	accessLog := fs.String("access-log", "", "file to append one line per request to (default: stderr)")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0 // -h: the help is printed
	} else if err != nil || *dir == "" || fs.NArg() > 0 {
		fmt.Fprint(stderr, "mcpsum-log serve: want --dir D --addr HOST:PORT\n")
		return 2
	}
	if err := serve(ctx, *dir, sumlog.Options{Storage: *storage}, *addr, *accessLog, stderr); err != nil {
		return fail(stderr, "serve", err)
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
	h, closeStorage, err := sumlog.Handler(ctx, dir, st, access)
	if err != nil {
		return err
	}
	defer closeStorage()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "serving %s on http://%s\n", dir, ln.Addr())
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
