package locker

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpsum/mcpsum/internal/attestproto"
	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Sign checks the lockfile at path (Read: its digests), has the signing
// helper c sign its exact bytes (args: the helper's sign flags; the
// passphrase and the OIDC token reach it through the environment), and
// writes the Sigstore bundle to bundle, or beside the lockfile when bundle
// is "". note hears what the helper noted. It returns where the bundle went.
func Sign(ctx context.Context, c attestproto.Client, path, bundle string, args []string, note func(string)) (string, error) {
	data, _, err := Read(path)
	if err != nil {
		return "", err
	}
	resp, err := c.Sign(ctx, data, args...)
	if resp != nil {
		for _, n := range resp.Notes {
			note(n)
		}
	}
	if err != nil {
		return "", err
	}
	dst := attestproto.BundlePath(path, bundle)
	write := statefile.WriteOutput // a file is replaced atomically; a device such as /dev/stdout written to
	if bundle == "" {              // a path the user did not name: never through a link
		write = statefile.WriteDerived
	}
	if err := write(dst, resp.Bundle, 0o644); err != nil {
		var le *statefile.LinkError
		if errors.As(err, &le) {
			return "", hint.Errorf("remove it (rm "+termtext.ShellArg(dst)+") and sign again, or write the bundle elsewhere with --bundle FILE", "%w", err)
		}
		return "", fmt.Errorf("write bundle: %w", err)
	}
	return dst, nil
}
