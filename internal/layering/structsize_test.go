package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFields is the most fields a struct of mcpsum may have (HELPERS.md,
// "no struct over 20 fields"): a record that grows past it holds several
// concerns, each of which wants a record of its own.
const maxFields = 20

// TestStructSize finds every struct type of the module's Go files (tests
// included, anonymous structs too) with more than maxFields fields; a
// field list "a, b int" counts two, an embedded type one.
func TestStructSize(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || strings.HasPrefix(name, "bazel-")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			if st, ok := n.(*ast.StructType); ok {
				if c := fieldCount(st); c > maxFields {
					rel, _ := filepath.Rel(root, fset.Position(st.Pos()).Filename)
					t.Errorf("%s:%d: a struct of %d fields (at most %d): group the fields that belong together into a record of their own", rel, fset.Position(st.Pos()).Line, c, maxFields)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read only %d Go files under %s: not the mcpsum tree", files, root)
	}
}

func fieldCount(st *ast.StructType) int {
	n := 0
	for _, f := range st.Fields.List {
		n += max(1, len(f.Names))
	}
	return n
}

// The count itself: names in one list count one each, an embedded type one.
func TestFieldCount(t *testing.T) {
	src := "package p\ntype s struct {\n\ta, b int\n\tc string\n\tfmt.Stringer\n\t*T\n}\n"
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got int
	ast.Inspect(f, func(n ast.Node) bool {
		if st, ok := n.(*ast.StructType); ok {
			got = fieldCount(st)
		}
		return true
	})
	if got != 5 {
		t.Fatalf("counted %d fields, want 5", got)
	}
}
