package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"

	"github.com/mcpsum/mcpsum/internal/oauth"

	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// remoteTarget checks the flags of `lock --url URL [--header NAME=ENVVAR]...`
// and returns the entry's target (locker.RemoteTarget).
func remoteTarget(url string, headers, envs, args []string) (*lockfile.Server, error) {
	switch {
	case url == "":
		return nil, usageHint("give its --url", "--header applies to a remote server")
	case len(args) > 0:
		return nil, usageErr("give either --url (a remote server) or a command after -- (a local one), not both")
	case len(envs) > 0:
		return nil, usageHint("a remote server gets its credentials with --header NAME=ENVVAR", "--env applies to a local server's command")
	}
	return locker.RemoteTarget(url, headers)
}

// authorizer shows an OAuth authorization URL: printed on stderr, and
// handed to $BROWSER when it is set, as the one argument of that program
// (never through a shell).
func (a *app) authorizer(cmd string) func(server, authURL string) error {
	return func(server, authURL string) error {
		fmt.Fprintf(a.stderr, "%s: %s asks you to sign in; open this URL in your browser:\n  %s\n", cmd, server, quoteArg(authURL))
		if b := os.Getenv("BROWSER"); b != "" {
			c := exec.Command(b, authURL)
			c.Stdout, c.Stderr = a.stderr, a.stderr
			if err := c.Start(); err != nil {
				fmt.Fprintf(a.stderr, "%s: note: could not start $BROWSER (%v); open the URL yourself\n", cmd, err)
				return nil
			}
			go c.Wait()
		}
		return nil
	}
}

// oauthFlags are lock's OAuth client flags.
type oauthFlags struct {
	clientID, secretEnv, metadataURL *string
}

func (o *oauthFlags) register(fs *flag.FlagSet) {
	o.clientID = fs.String("oauth-client-id", "", "with --url: sign in as this client, registered with the authorization server beforehand (pinned in the entry)")
	o.secretEnv = fs.String("oauth-client-secret-env", "", "with --oauth-client-id: the environment variable holding that client's secret (the name is pinned, never the value)")
	o.metadataURL = fs.String("oauth-client-metadata-url", "", "the URL of a Client ID Metadata Document to sign in with where the authorization server supports them (else dynamic registration)")
}

// check refuses the flags where they do not apply.
func (o *oauthFlags) check(url string) error {
	switch {
	case (*o.clientID != "" || *o.secretEnv != "") && url == "":
		return usageErr("--oauth-client-id and --oauth-client-secret-env apply to a new remote entry: give its --url (a re-lock keeps the client its entry pins)")
	case *o.secretEnv != "" && *o.clientID == "":
		return usageErr("--oauth-client-secret-env names the secret of --oauth-client-id: give the client id too")
	case *o.secretEnv != "" && !lockfile.ValidEnvName(*o.secretEnv):
		return usageErr("--oauth-client-secret-env %s: want the name of an environment variable (the secret itself is never given on the command line nor stored)", quoteArg(*o.secretEnv))
	case *o.clientID != "" && !validClientID(*o.clientID):
		return usageErr("--oauth-client-id %s: want printable ASCII without spaces", quoteArg(*o.clientID))
	case *o.metadataURL != "":
		if err := oauth.CheckMetadataURL(*o.metadataURL); err != nil {
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
func (o *oauthFlags) pin() *lockfile.OAuth {
	if *o.clientID == "" {
		return nil
	}
	return &lockfile.OAuth{ClientID: *o.clientID, ClientSecretEnv: *o.secretEnv}
}
