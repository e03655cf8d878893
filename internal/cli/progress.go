package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Progress reports one line per task as it ends ("NAME  TEXT (time)") and,
// when live, a status line naming the tasks still running and what each is
// doing (Step), rewritten in place while they run.
type Progress struct {
	w       io.Writer
	mu      sync.Mutex
	start   time.Time
	pending map[string]string // task → its step ("" before the first)
	width   int
	live    bool
	drawn   time.Time // when the status line was last written
	quit    chan struct{}
	wg      sync.WaitGroup
}

// NewProgress starts the report of the tasks names on w; live: w is a
// terminal (IsTerminal).
func NewProgress(w io.Writer, live bool, names []string) *Progress {
	p := &Progress{w: w, start: time.Now(), pending: map[string]string{}, live: live, quit: make(chan struct{})}
	for _, n := range names {
		p.pending[n] = ""
		p.width = max(p.width, len(n))
	}
	if p.live {
		p.wg.Add(1)
		go p.ticker()
	}
	return p
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (p *Progress) ticker() {
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

// status rewrites the live line (caller holds mu): each task still running
// and its step.
func (p *Progress) status() {
	var names []string
	for n, step := range p.pending {
		if step != "" {
			n += ": " + step
		}
		names = append(names, n)
	}
	slices.Sort(names)
	line := fmt.Sprintf("  %.1fs, waiting for %s", time.Since(p.start).Seconds(), strings.Join(names, "; "))
	if r := []rune(line); len(r) > Width-1 {
		line = string(r[:Width-2]) + "…"
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
	p.drawn = time.Now()
}

// Step says what task name is doing now; when live, the status line shows
// it: at once when it starts a new kind of step (the text before its first
// ':' or ';'), else unless the line was written in the last 100ms (the
// ticker catches up). It may be called from several goroutines.
func (p *Progress) Step(name, step string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	prev, ok := p.pending[name]
	if !ok {
		return
	}
	p.pending[name] = step
	if p.live && (kind(prev) != kind(step) || time.Since(p.drawn) >= 100*time.Millisecond) {
		p.status()
	}
}

func kind(step string) string {
	if i := strings.IndexAny(step, ":;"); i >= 0 {
		return step[:i]
	}
	return step
}

// Done reports that task name ended, with text (its outcome: the time it
// took follows text's first line); it may be called from several goroutines.
func (p *Progress) Done(name, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.pending, name)
	if p.live {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	took := time.Since(p.start).Round(10 * time.Millisecond)
	first, rest, more := strings.Cut(text, "\n")
	fmt.Fprintf(p.w, "%-*s  %s (%s)\n", p.width, name, first, took)
	if more {
		fmt.Fprintf(p.w, "%s\n", rest)
	}
	if p.live && len(p.pending) > 0 {
		p.status()
	}
}

// Stop ends the live line's updates.
func (p *Progress) Stop() {
	close(p.quit)
	p.wg.Wait()
}
