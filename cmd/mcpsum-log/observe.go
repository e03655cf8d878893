package main

import (
	"context"
	"io"
)

func runObserve(ctx context.Context, args []string, stdout, stderr io.Writer) int { return 2 }
