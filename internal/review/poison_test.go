package review

import (
	"slices"
	"testing"

	"github.com/mcpsum/mcpsum/internal/review/reviewtest"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// TestPoisoningPatterns: each published tool-poisoning pattern, made to a
// real tool of the official npm servers, gets the labels a reviewer needs
// — alone (2026.8 against the poisoned 2026.8), and inside the real
// 2026.1 → 2026.8 bump, where it must never be descriptive.
func TestPoisoningPatterns(t *testing.T) {
	old, cur, _ := reviewtest.Bump(t)
	for _, c := range reviewtest.Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			p := reviewtest.Poison(t, cur, c)
			locked, observed := cur.Servers[c.Server], p.Servers[c.Server]
			fs := lockfile.Compare(locked, observed)
			Label(fs, locked, observed)
			if len(fs) != 1 {
				t.Fatalf("%d findings, want 1: %v", len(fs), fs)
			}
			if !slices.Equal(fs[0].Labels, c.Labels) {
				t.Errorf("alone: labels %q, want %q (why %q)", fs[0].Labels, c.Labels, fs[0].Why)
			}
			locked = old.Servers[c.Server]
			fs = lockfile.Compare(locked, observed)
			Label(fs, locked, observed)
			f := reviewtest.FindingOf(t, fs, c)
			for _, l := range c.Labels {
				if l != Descriptive && l != Reworded && !slices.Contains(f.Labels, l) {
					t.Errorf("in the bump: labels %q lack %q", f.Labels, l)
				}
			}
			if !OnlyDescriptive(c.Labels) && OnlyDescriptive(f.Labels) {
				t.Errorf("in the bump: descriptive")
			}
		})
	}
}
