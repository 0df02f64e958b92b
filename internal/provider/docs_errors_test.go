package provider

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// notInDocs are summaries a user never meets: a framework wiring bug, not a configuration or
// cluster problem.
var notInDocs = map[string]bool{"Unexpected provider data": true}

// TestEveryDiagnosticSummaryIsDocumented keeps the Errors lists of the docs (written by hand in
// templates/) in step with the code: every summary line the provider can show, found in the
// source by its position in AddError, AddAttributeError, AddWarning, AddAttributeWarning and
// addErrorAt (or as a summary* constant), must appear in docs/.
func TestEveryDiagnosticSummaryIsDocumented(t *testing.T) {
	summaries := diagnosticSummaries(t)
	if len(summaries) < 30 {
		t.Fatalf("found only %d summaries in the source: the scan is broken", len(summaries))
	}
	docs := readDocs(t)
	var missing []string
	for _, s := range summaries {
		if !notInDocs[s] && !strings.Contains(docs, s) {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("summaries not in docs/ (add them to an Errors list in templates/, then make generate):\n%s",
			strings.Join(missing, "\n"))
	}
}

// diagnosticSummaries type-checks this package's non-test files just enough to evaluate the
// constant summary arguments (literals, constants and their concatenations).
func diagnosticSummaries(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{Error: func(error) {}} // imports are not resolved: only constants matter here
	_, _ = conf.Check("provider", fset, files, info)

	seen := map[string]bool{}
	add := func(e ast.Expr) {
		if tv, ok := info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
			seen[constant.StringVal(tv.Value)] = true
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var name string
			switch fn := call.Fun.(type) {
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			case *ast.Ident:
				name = fn.Name
			}
			switch name {
			case "AddError", "AddWarning":
				if len(call.Args) == 2 {
					add(call.Args[0])
				}
			case "AddAttributeError", "AddAttributeWarning":
				if len(call.Args) == 3 {
					add(call.Args[1])
				}
			case "addErrorAt": // diagnostics.go: on an attribute, or on the data source as a whole
				if len(call.Args) == 4 {
					add(call.Args[2])
				}
			}
			return true
		})
	}
	for id, obj := range info.Defs {
		if c, ok := obj.(*types.Const); ok && strings.HasPrefix(id.Name, "summary") && c.Val().Kind() == constant.String {
			seen[constant.StringVal(c.Val())] = true
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func readDocs(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir("../../docs", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		b.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
