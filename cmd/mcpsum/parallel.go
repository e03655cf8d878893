package main

import (
	"context"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// maxParallel bounds how many servers run at once.
const maxParallel = 8

type result struct {
	entry *lockfile.Server
	err   error
	took  time.Duration
}

// parallel runs fn for every name, at most maxParallel at a time, and returns
// the results in the order of names.
func parallel(ctx context.Context, names []string, fn func(context.Context, string) (*lockfile.Server, error)) []result {
	out := make([]result, len(names))
	sem := make(chan struct{}, maxParallel)
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			e, err := fn(ctx, n)
			out[i] = result{e, err, time.Since(start)}
		}()
	}
	wg.Wait()
	return out
}
