// Command proxysrv is the go-sdk server of internal/proxy/proxytest as a binary,
// for the proxy's end-to-end tests and benchmark: big results, slow,
// crashing and flooding calls, list_changed at run time, input requests.
// -never-answer makes it a FAKE server that reads and never answers.
package main

import (
	"os"

	"github.com/mcpsum/mcpsum/internal/proxy/proxytest"
)

func main() { os.Exit(proxytest.Main(os.Args[1:])) }
