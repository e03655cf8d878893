package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestsRunInParallel keeps the package's tests parallel by default, so
// the README's `go test ./...` stays within its time on 2 cores: every test
// starts with t.Parallel() unless its doc comment has a line "Serial: why"
// (a measurement that must run alone). Parallel tests share the process, so
// none may change it: no t.Setenv, os.Setenv, os.Unsetenv, os.Chdir or
// t.Chdir (pass an environment to the command instead). Each test has its
// own t.TempDir(); the run as a whole has its own HOME and XDG folders
// (TestMain, testbin.Run).
func TestTestsRunInParallel(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files (%v)", err)
	}
	// The longest tests start first from the file that sorts last
	// (zz_longest_test.go says why), which holds nothing else.
	if last := files[len(files)-1]; last != "zz_longest_test.go" {
		t.Errorf("%s sorts after zz_longest_test.go: the longest tests must stay in the last file to start first", last)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" {
				continue
			}
			if name == "zz_longest_test.go" && !longestTests[fn.Name.Name] {
				t.Errorf("%s: %s is not one of the longest tests (longestTests): declare it beside the tests of its subject", fset.Position(fn.Pos()), fn.Name.Name)
			}
			if !startsParallel(fn) && !strings.Contains(fn.Doc.Text(), "\nSerial: ") {
				t.Errorf("%s: %s does not start with t.Parallel() (or say why it must run alone in a \"Serial: \" line of its doc comment)", fset.Position(fn.Pos()), fn.Name.Name)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, _ := sel.X.(*ast.Ident)
			if x == nil {
				return true
			}
			switch {
			case x.Name == "os" && (sel.Sel.Name == "Setenv" || sel.Sel.Name == "Unsetenv" || sel.Sel.Name == "Chdir"),
				x.Name == "t" && (sel.Sel.Name == "Setenv" || sel.Sel.Name == "Chdir"):
				t.Errorf("%s: %s.%s changes the whole test process, which parallel tests share: give the command its own env or dir", fset.Position(sel.Pos()), x.Name, sel.Sel.Name)
			}
			return true
		})
	}
}

// longestTests are the tests of zz_longest_test.go: the longest on a
// 2-core machine with the package's 8 at a time (go test -json's elapsed
// per test, 2026-12-06).
var longestTests = map[string]bool{
	"TestInstallVariableEnvHint": true,
	"TestColdNpxVerifyFirstTry":  true,
	"TestProxyInspector":         true,
	"TestReadmeFirstCommands":    true,
	"TestSumdbEndToEnd":          true,
	"TestServeConformance":       true,
}

func startsParallel(fn *ast.FuncDecl) bool {
	if fn.Body == nil || len(fn.Body.List) == 0 {
		return false
	}
	es, ok := fn.Body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	c, ok := es.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Parallel"
}
