package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// notMcpsum are folders whose programs never run process.Before (other
// binaries, test peers): their children need not wait for mcpsum's guard.
var notMcpsum = []string{
	"cmd/mcpsum-log", "cmd/mcpsum-attest", "e2e", "internal/process",
	"internal/testbin", "internal/sumlog", // linked by mcpsum-log only (internal/layering's onlyFrom)
}

// TestEveryChildWaitsForTheGuard keeps Before's promise for children started
// with os/exec instead of Start: every function of mcpsum's code that makes
// an exec.Cmd must also call process.Settle, Start or StartKept (which wait
// for the guard), so a child added later cannot be forked while mcpsum's
// environment is still readable and before it is a subreaper. An
// attestproto.Client (which starts the signing helper itself) may be made
// only where Settle is called.
func TestEveryChildWaitsForTheGuard(t *testing.T) {
	root := moduleRoot(t)
	var checked int
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			for _, skip := range notMcpsum {
				if rel == skip {
					return filepath.SkipDir
				}
			}
			if path != root && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "bazel-") || d.Name() == "node_modules" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			starts, waits := childStarts(fn.Body)
			if starts == "" {
				continue
			}
			checked++
			if rel == "internal/attestproto/client.go" && starts != "attestproto.Client" {
				continue // the helper's client: made only where Settle runs (checked below)
			}
			if !waits {
				t.Errorf("%s: %s makes %s but never calls process.Settle, Start or StartKept: the child could start before mcpsum's guard (process.Before)", rel, fn.Name.Name, starts)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 5 { // lock's $BROWSER, sign's helper, npx install, versions, sandbox probe
		t.Fatalf("found only %d functions that start children: the scan is broken", checked)
	}
}

// childStarts says what in body makes a child process without Start
// ("exec.Command", or "attestproto.Client" for a composite literal of it)
// and whether body calls one of the process functions that wait for the
// guard.
func childStarts(body *ast.BlockStmt) (starts string, waits bool) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			switch sel := selectorName(n.Fun); sel {
			case "exec.Command", "exec.CommandContext":
				starts = sel
			case "process.Settle", "process.Start", "process.StartKept":
				waits = true
			}
		case *ast.CompositeLit:
			if selectorName(n.Type) == "attestproto.Client" && starts == "" {
				starts = "attestproto.Client"
			}
		}
		return true
	})
	return starts, waits
}

func selectorName(e ast.Expr) string {
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	x, ok := s.X.(*ast.Ident)
	if !ok {
		return ""
	}
	return x.Name + "." + s.Sel.Name
}
