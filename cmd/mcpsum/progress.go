package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// progress reports one line per server with its outcome and time, and a live
// status line while servers run when stderr is a terminal.
type progress struct {
	w       io.Writer
	mu      sync.Mutex
	start   time.Time
	pending map[string]bool
	width   int
	live    bool
	quit    chan struct{}
	wg      sync.WaitGroup
}

func newProgress(w io.Writer, names []string) *progress {
	p := &progress{w: w, start: time.Now(), pending: map[string]bool{}, quit: make(chan struct{})}
	for _, n := range names {
		p.pending[n] = true
		p.width = max(p.width, len(n))
	}
	p.live = isTerminal(w)
	if p.live {
		p.wg.Add(1)
		go p.ticker()
	}
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}

func (p *progress) ticker() {
	defer p.wg.Done()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
			p.mu.Lock()
			p.status()
			p.mu.Unlock()
		}
	}
}

// status rewrites the live line (caller holds mu).
func (p *progress) status() {
	var names []string
	for n := range p.pending {
		names = append(names, n)
	}
	sort.Strings(names)
	line := fmt.Sprintf("  waiting for %s (%.1fs)", strings.Join(names, ", "), time.Since(p.start).Seconds())
	if len(line) > 100 {
		line = line[:99] + "…"
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
}

// done reports one server's outcome.
func (p *progress) done(name string, e *lockfile.Server, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.pending, name)
	if p.live {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	took := time.Since(p.start).Round(10 * time.Millisecond)
	if err != nil {
		fmt.Fprintf(p.w, "%-*s  FAILED  %v (%s)\n", p.width, name, err, took)
	} else {
		fmt.Fprintf(p.w, "%-*s  ok      %s %s, %d tools, %d prompts, %d resources, %d templates (%s)\n",
			p.width, name, e.Era(), e.ProtocolVersion, len(e.Tools), len(e.Prompts), len(e.Resources), len(e.ResourceTemplates), took)
	}
	if p.live && len(p.pending) > 0 {
		p.status()
	}
}

func (p *progress) stop() {
	close(p.quit)
	p.wg.Wait()
}
