package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// logConfig is the transparency log the environment configures (MCPSUMDB,
// MCPSUM_NOSUMDB, MCPSUM_WITNESS_POLICY); nil when none is.
func logConfig() (*sumdb.Config, error) {
	cfg, err := sumdb.ConfigFromEnv(os.Getenv)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	return cfg, nil
}

// logChecker looks cmd's entries up in the transparency log before cmd
// writes them (launch.CheckLog), saying on stderr what happened to each.
func (a *app) logChecker(cmd string) func(context.Context, *lockfile.File, map[string]*lockfile.Server) error {
	return func(ctx context.Context, seen *lockfile.File, entries map[string]*lockfile.Server) error {
		cfg, err := logConfig()
		if err != nil || cfg == nil {
			return err
		}
		err = launch.CheckLog(ctx, cfg, seen, entries, func(name, what string) { fmt.Fprintf(a.stderr, "%s: %s: %s\n", cmd, name, what) })
		if err != nil {
			return fmt.Errorf("%s: %w", cmd, err)
		}
		return nil
	}
}
