package mcpwire

import "context"

type stepsKey struct{}

// WithSteps returns ctx carrying f, which hears what a long exchange is
// doing ("listing tools: 400 so far") while it runs: progress for a person
// at a terminal, nothing more (nothing depends on it).
func WithSteps(ctx context.Context, f func(step string)) context.Context {
	return context.WithValue(ctx, stepsKey{}, f)
}

// Step tells ctx's step listener (WithSteps), if any, what is being done.
func Step(ctx context.Context, step string) {
	if f, ok := ctx.Value(stepsKey{}).(func(string)); ok && f != nil {
		f(step)
	}
}
