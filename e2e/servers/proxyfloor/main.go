// Command proxyfloor is the least a proxy of its own binary must do on a
// client's connect: load and check the lock (pkg/lockfile), start the
// locked server with its environment withheld, and relay bytes both ways,
// nothing else (no surface check, no sandbox, no hooks: not a proxy to
// use). It takes mcpsum proxy's arguments, so the start-up harness runs it
// as its baseline, the floor a smaller proxy binary could reach:
//
//	go build -o /tmp/proxyfloor ./e2e/servers/proxyfloor
//	MCPSUM_BENCH_BASELINE=/tmp/proxyfloor MCPSUM_PROXY_PERF=1 go test ./e2e -run 'TestProxyStartupPerformance$' -v
//
// Usage: proxyfloor proxy --lockfile LOCKFILE --name NAME
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

func main() {
	var path, name string
	for i, a := range os.Args[1 : len(os.Args)-1] {
		switch a {
		case "--lockfile":
			path = os.Args[i+2]
		case "--name":
			name = os.Args[i+2]
		}
	}
	f, err := lockfile.Load(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxyfloor:", err)
		os.Exit(3)
	}
	e := f.Servers[name]
	if e == nil || len(e.Command) == 0 {
		fmt.Fprintf(os.Stderr, "proxyfloor: no stdio server %q in %s\n", name, path)
		os.Exit(3)
	}
	cmd := exec.Command(e.Command[0], e.Command[1:]...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for _, n := range e.EnvPassthrough {
		if v, ok := os.LookupEnv(n); ok {
			cmd.Env = append(cmd.Env, n+"="+v)
		}
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		os.Exit(3)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.Exit(3)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "proxyfloor:", err)
		os.Exit(3)
	}
	go func() {
		io.Copy(in, os.Stdin)
		in.Close()
	}()
	io.Copy(os.Stdout, out)
	if cmd.Wait() != nil {
		os.Exit(1)
	}
}
