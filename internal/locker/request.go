package locker

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/oauth"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Request is one `mcpsum lock` as its flags ask it: add an entry that runs
// Command, add a remote one at URL, re-lock (no command), or Remove one.
type Request struct {
	Path, Name string
	Command    []string // the server's argv, after --
	Env        []string // --env: variables passed through
	URL        string   // --url: a remote server
	Headers    []string // --header NAME=ENVVAR
	Accept     string   // --accept KIND (a re-lock only)
	Remove     string   // --remove NAME
	Era        string   // --era: auto ("" too), legacy or 2026-07-28 (a new entry only)
	OAuth      OAuthClient
}

// OAuthClient is the client a new remote entry signs in as (--oauth-…).
type OAuthClient struct{ ID, SecretEnv, MetadataURL string }

// Lock checks which of its forms r asks for, refusing flags that do not
// apply (a *UsageError), and does it: LockNew, Relock or Remove. The lock
// runs with opts; o and h are LockNew's and Relock's.
func Lock(ctx context.Context, r Request, opts launch.Options, o Options, h Hooks) error {
	era, err := launch.ParseEra(r.Era)
	if err != nil {
		return usageErr("%v", err)
	}
	if r.Remove != "" {
		if len(r.Command) > 0 || r.Name != "" || len(r.Env) > 0 || r.Accept != "" || r.URL != "" || len(r.Headers) > 0 || era != "" {
			return usageHint(fmt.Sprintf("mcpsum lock --lockfile %s --remove %s", termtext.ShellArg(r.Path), termtext.ShellArg(r.Remove)), "--remove takes only the entry's name")
		}
		if err := Remove(r.Path, r.Remove, o.Generator); err != nil {
			return err
		}
		h.Note(fmt.Sprintf("removed %s from %s", termtext.ShellArg(r.Remove), r.Path))
		return nil
	}
	if r.Accept != "" && !slices.Contains(AcceptKinds, r.Accept) {
		return usageErr("--accept %s: the one kind lock can accept on its own is descriptive (only case, punctuation, reordering or deleted words)", termtext.ShellArg(r.Accept))
	}
	opts.ClientMetadataURL = r.OAuth.MetadataURL
	opts.Era = era
	if err := r.OAuth.check(r.URL); err != nil {
		return err
	}
	if r.URL != "" || len(r.Headers) > 0 {
		if r.Accept != "" {
			return usageHint("mcpsum lock --accept "+termtext.ShellArg(r.Accept)+" --name NAME", "--accept re-locks existing entries; it takes no --url")
		}
		target, err := r.remoteTarget()
		if err != nil {
			return err
		}
		target.OAuth = r.OAuth.pin()
		return LockNew(ctx, r.Path, r.Name, target, opts, o, h)
	}
	if len(r.Command) == 0 {
		if len(r.Env) > 0 {
			return usageHint("give the server command after --: mcpsum lock --name N --env VAR -- COMMAND [ARG]...", "--env applies to a new entry")
		}
		if era != "" {
			return relockEra(r.Path, r.Name, era)
		}
		return Relock(ctx, r.Path, r.Name, opts, o, h)
	}
	if r.Accept != "" {
		return usageHint("mcpsum lock --accept "+termtext.ShellArg(r.Accept)+" --name NAME", "--accept re-locks existing entries; it takes no command")
	}
	target, unset, err := CommandTarget(r.Command, r.Env, os.LookupEnv)
	for _, e := range unset {
		h.Note(fmt.Sprintf("note: %s is not set here; the server will start without it", e))
	}
	if err != nil {
		return err
	}
	return LockNew(ctx, r.Path, r.Name, target, opts, o, h)
}

// remoteTarget checks the flags of `lock --url URL [--header NAME=ENVVAR]...`
// and returns the entry's target (RemoteTarget).
func (r Request) remoteTarget() (*lockfile.Server, error) {
	switch {
	case r.URL == "":
		return nil, usageHint("give its --url", "--header applies to a remote server")
	case len(r.Command) > 0:
		return nil, usageErr("give either --url (a remote server) or a command after -- (a local one), not both")
	case len(r.Env) > 0:
		return nil, usageHint("a remote server gets its credentials with --header NAME=ENVVAR", "--env applies to a local server's command")
	}
	return RemoteTarget(r.URL, r.Headers)
}

// check refuses the OAuth client flags where they do not apply.
func (c OAuthClient) check(url string) error {
	switch {
	case (c.ID != "" || c.SecretEnv != "") && url == "":
		return usageErr("--oauth-client-id and --oauth-client-secret-env apply to a new remote entry: give its --url (a re-lock keeps the client its entry pins)")
	case c.SecretEnv != "" && c.ID == "":
		return usageErr("--oauth-client-secret-env names the secret of --oauth-client-id: give the client id too")
	case c.SecretEnv != "" && !lockfile.ValidEnvName(c.SecretEnv):
		return usageErr("--oauth-client-secret-env %s: want the name of an environment variable (the secret itself is never given on the command line nor stored)", termtext.ShellArg(c.SecretEnv))
	case c.ID != "" && !validClientID(c.ID):
		return usageErr("--oauth-client-id %s: want printable ASCII without spaces", termtext.ShellArg(c.ID))
	case c.MetadataURL != "":
		if err := oauth.CheckMetadataURL(c.MetadataURL); err != nil {
			return usageErr("--oauth-client-metadata-url: %v", err)
		}
	}
	return nil
}

func validClientID(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return s != ""
}

// pin is the partial oauth pin of a new entry: the client it signs in as
// (issuer and resource come from the sign-in); nil without a client id.
func (c OAuthClient) pin() *lockfile.OAuth {
	if c.ID == "" {
		return nil
	}
	return &lockfile.OAuth{ClientID: c.ID, ClientSecretEnv: c.SecretEnv}
}
