// Command proxyrelay is a plain byte relay between its stdio and a child's:
// the floor any MCP proxy is measured against in the proxy benchmark. It
// inspects nothing.
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: proxyrelay COMMAND [ARG]...")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if f, ok := out.(*os.File); ok {
		growPipes(f)
	}
	go func() { io.Copy(in, os.Stdin); in.Close() }()
	io.Copy(os.Stdout, out)
	cmd.Wait()
}
