package launch

import (
	"context"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// MaxParallel bounds how many servers Each runs at once.
const MaxParallel = 8

// Result is one server's entry (or error) from Each.
type Result struct {
	Entry *lockfile.Server
	Err   error
	Took  time.Duration
}

// Each runs fn for every name, at most MaxParallel at a time, and returns
// the results in the order of names.
func Each(ctx context.Context, names []string, fn func(context.Context, string) (*lockfile.Server, error)) []Result {
	out := make([]Result, len(names))
	sem := make(chan struct{}, MaxParallel)
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			e, err := fn(ctx, n)
			out[i] = Result{e, err, time.Since(start)}
		}()
	}
	wg.Wait()
	return out
}
