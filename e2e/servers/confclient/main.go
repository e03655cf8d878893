// Command confclient is the client the MCP conformance suite
// (@modelcontextprotocol/conformance) runs for its client scenarios: it
// is mcpsum as a user runs it. The suite appends its server's URL;
// confclient locks it (`mcpsum lock --url URL`, signing in through a
// headless $BROWSER, which is confclient itself following the redirects),
// then calls the server's tool through `mcpsum proxy`. A call refused for a
// wider scope (step-up) is answered with the command that signs in with
// it; confclient runs that re-lock, as a user would, and calls again.
//
//	confclient -mcpsum PATH [-metadata-url URL] SERVER_URL
//
// MCP_CONFORMANCE_CONTEXT (JSON) may carry a pre-registered client_id and
// client_secret: they become --oauth-client-id and the variable named by
// --oauth-client-secret-env.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	if os.Getenv("CONFCLIENT_BROWSER") == "1" {
		os.Exit(browse(os.Args[1]))
	}
	mcpsum := flag.String("mcpsum", "", "the mcpsum binary")
	metadata := flag.String("metadata-url", "", "--oauth-client-metadata-url for lock")
	flag.Parse()
	if *mcpsum == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: confclient -mcpsum PATH [-metadata-url URL] SERVER_URL")
		os.Exit(2)
	}
	os.Exit(run(*mcpsum, *metadata, flag.Arg(0)))
}

// browse plays the user's browser: it opens the URL and follows the
// redirects back to mcpsum's loopback listener, keeping cookies as a
// browser does (an authorization server's login and consent steps).
func browse(u string) int {
	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Jar: jar}).Get(u)
	if err != nil {
		fmt.Fprintln(os.Stderr, "browser:", err)
		return 1
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	fmt.Fprintf(os.Stderr, "browser: HTTP %d %s\n", resp.StatusCode, bytes.TrimSpace(b))
	return 0
}

func run(mcpsum, metadata, url string) int {
	dir, err := os.MkdirTemp("", "confclient-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	self, _ := os.Executable()
	env := append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "BROWSER="+self, "CONFCLIENT_BROWSER=1")
	lockfile := filepath.Join(dir, "mcp.lock")
	args := []string{"lock", "--lockfile", lockfile, "--name", "conf", "--url", url}
	if metadata != "" {
		args = append(args, "--oauth-client-metadata-url", metadata)
	}
	var ctx struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if c := os.Getenv("MCP_CONFORMANCE_CONTEXT"); c != "" {
		json.Unmarshal([]byte(c), &ctx)
	}
	if ctx.ClientID != "" {
		args = append(args, "--oauth-client-id", ctx.ClientID)
		if ctx.ClientSecret != "" {
			args = append(args, "--oauth-client-secret-env", "CONF_CLIENT_SECRET")
			env = append(env, "CONF_CLIENT_SECRET="+ctx.ClientSecret)
		}
	}
	if !command(mcpsum, env, nil, args...) {
		return 1
	}
	for try := 0; ; try++ {
		answer := call(mcpsum, env, lockfile)
		fmt.Printf("tools/call answered: %s\n", answer)
		if strings.Contains(answer, `"result"`) {
			return 0
		}
		// The proxy's answer names the command that signs in with the
		// scope the call needs; run it as a user would (once).
		if try > 0 || !strings.Contains(answer, "mcpsum lock") {
			return 1
		}
		if !command(mcpsum, env, nil, "lock", "--lockfile", lockfile, "--name", "conf") {
			return 1
		}
	}
}

func command(mcpsum string, env []string, stdin io.Reader, args ...string) bool {
	c := exec.Command(mcpsum, args...)
	c.Env, c.Stdin, c.Stdout, c.Stderr = env, stdin, os.Stderr, os.Stderr
	if err := c.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "mcpsum %s: %v\n", strings.Join(args, " "), err)
		return false
	}
	return true
}

// call runs one tools/call of the suite's tool through mcpsum proxy and
// returns its answer line ("" when none came).
func call(mcpsum string, env []string, lockfile string) string {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"confclient","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test-tool","arguments":{}}}`,
	}, "\n") + "\n"
	c := exec.Command(mcpsum, "proxy", "--lockfile", lockfile, "--name", "conf")
	c.Env, c.Stdin, c.Stderr = env, strings.NewReader(in), os.Stderr
	out, _ := c.Output()
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"id":2`) {
			return sc.Text()
		}
	}
	return ""
}
