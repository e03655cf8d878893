package main

import (
	"fmt"
	"io"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/redact"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// progress reports one line per server with its outcome and time, and a live
// status line while servers run when stderr is a terminal (cli.Progress).
type progress struct{ *cli.Progress }

func newProgress(w io.Writer, names []string) *progress {
	return &progress{cli.NewProgress(w, isTerminal(w), names)}
}

// isTerminal sees through the redacting writers of app.
var isTerminal = func(w io.Writer) bool {
	if r, ok := w.(redact.Writer); ok {
		w = r.W
	}
	return cli.IsTerminal(w)
}

// done reports one server's outcome.
func (p *progress) done(name string, e *lockfile.Server, err error) {
	if err != nil {
		p.Done(name, "FAILED  "+hint.Lines(err, "  "))
		return
	}
	p.Done(name, fmt.Sprintf("ok      %s %s, %d tools, %d prompts, %d resources, %d templates",
		e.Era(), e.ProtocolVersion, len(e.Tools), len(e.Prompts), len(e.Resources), len(e.ResourceTemplates)))
}

func (p *progress) stop() { p.Stop() }
