// Package docs holds the user documentation; its test keeps conditions.md in step with the code.
package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/manila-csi/manila-csi-driver-operator/"

// row is one line of the table in conditions.md.
type row struct{ types, reason, setBy string }

func tableRows(t *testing.T) []row {
	t.Helper()
	data, err := os.ReadFile("conditions.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []row
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 7 || !strings.HasPrefix(strings.TrimSpace(cells[2]), "`") {
			continue // not a table row, or the header
		}
		rows = append(rows, row{types: cells[1], reason: strings.Trim(strings.TrimSpace(cells[2]), "`"), setBy: strings.TrimSpace(cells[3])})
	}
	if len(rows) == 0 {
		t.Fatal("conditions.md has no table rows")
	}
	return rows
}

// pkgSource is one package's parsed files and its constants' expressions.
type pkgSource struct {
	files  []*ast.File
	consts map[string]ast.Expr
}

// parsePackages parses every non-test Go file under ../pkg, by package directory relative to the module.
func parsePackages(t *testing.T) map[string]*pkgSource {
	t.Helper()
	fset := token.NewFileSet()
	pkgs := map[string]*pkgSource{}
	err := filepath.WalkDir(filepath.Join("..", "pkg"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(strings.TrimPrefix(filepath.Dir(path), ".."+string(filepath.Separator)))
		p := pkgs[dir]
		if p == nil {
			p = &pkgSource{consts: map[string]ast.Expr{}}
			pkgs[dir] = p
		}
		p.files = append(p.files, f)
		for _, decl := range f.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							p.consts[name.Name] = vs.Values[i]
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// evaluator resolves constant string expressions of one file: literals, constants of the package or
// of an imported package of the module, and their sums. What is not constant (a parameter) reads
// "<Controller>" for a type, and is reported unresolved.
type evaluator struct {
	pkgs    map[string]*pkgSource
	dir     string
	imports map[string]string // file's import name -> package directory
}

func (e evaluator) eval(x ast.Expr) (string, bool) {
	switch x := x.(type) {
	case *ast.BasicLit:
		s, err := strconv.Unquote(x.Value)
		return s, err == nil
	case *ast.Ident:
		if c, ok := e.pkgs[e.dir].consts[x.Name]; ok {
			return e.eval(c)
		}
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			if dir, ok := e.imports[id.Name]; ok {
				if c, ok := e.pkgs[dir].consts[x.Sel.Name]; ok {
					return evaluator{pkgs: e.pkgs, dir: dir, imports: nil}.eval(c)
				}
			}
		}
	case *ast.BinaryExpr:
		if x.Op == token.ADD {
			l, lok := e.eval(x.X)
			r, rok := e.eval(x.Y)
			if !lok {
				l = "<Controller>"
			}
			return l + r, rok
		}
	}
	return "", false
}

// codeReasons returns the reasons the operator's code sets: the Reason of every OperatorCondition
// literal, and every constant named Reason*, which is how reasons passed through parameters are kept.
// pairs holds the (type, reason) of literals where both are constant.
func codeReasons(t *testing.T) (reasons map[string]bool, pairs map[[2]string]bool) {
	reasons, pairs = map[string]bool{}, map[[2]string]bool{}
	pkgs := parsePackages(t)
	for dir, p := range pkgs {
		for name, c := range p.consts {
			if strings.HasPrefix(name, "Reason") {
				if v, ok := (evaluator{pkgs: pkgs, dir: dir}).eval(c); ok {
					reasons[v] = true
				}
			}
		}
		for _, f := range p.files {
			e := evaluator{pkgs: pkgs, dir: dir, imports: map[string]string{}}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if !strings.HasPrefix(path, module) {
					continue
				}
				name := path[strings.LastIndex(path, "/")+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				e.imports[name] = strings.TrimPrefix(path, module)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.CompositeLit)
				if !ok {
					return true
				}
				if sel, ok := lit.Type.(*ast.SelectorExpr); !ok || sel.Sel.Name != "OperatorCondition" {
					return true
				}
				var typ, reason string
				var typOK, reasonOK bool
				for _, el := range lit.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					switch kv.Key.(*ast.Ident).Name {
					case "Type":
						typ, typOK = e.eval(kv.Value)
					case "Reason":
						reason, reasonOK = e.eval(kv.Value)
					}
				}
				if reasonOK {
					reasons[reason] = true
					if typOK {
						pairs[[2]string{typ, reason}] = true
					}
				}
				return true
			})
		}
	}
	return reasons, pairs
}

// TestConditionsTable fails when the code sets a reason conditions.md does not list, or the table
// lists an operator reason the code no longer sets, or a library-go reason library-go no longer has.
func TestConditionsTable(t *testing.T) {
	rows := tableRows(t)
	reasons, pairs := codeReasons(t)
	if len(reasons) < 5 {
		t.Fatalf("found only %d reasons in ../pkg: the scanner is broken", len(reasons))
	}
	listed := map[string]bool{}
	for _, r := range rows {
		switch r.setBy {
		case "operator":
			listed[r.reason] = true
			if !reasons[r.reason] {
				t.Errorf("conditions.md lists reason %s (%s) that the operator's code no longer sets", r.reason, strings.TrimSpace(r.types))
			}
		case "library-go":
			if !libraryGoHas(t, r.reason) {
				t.Errorf("conditions.md lists library-go reason %s that the vendored library-go no longer sets", r.reason)
			}
		default:
			t.Errorf("row %s/%s: set by %q, want operator or library-go", strings.TrimSpace(r.types), r.reason, r.setBy)
		}
	}
	var missing []string
	for reason := range reasons {
		if !listed[reason] {
			missing = append(missing, reason)
		}
	}
	sort.Strings(missing)
	for _, reason := range missing {
		t.Errorf("the operator sets reason %s, which conditions.md does not list", reason)
	}
	for pair := range pairs {
		found := false
		for _, r := range rows {
			if r.setBy == "operator" && r.reason == pair[1] && strings.Contains(r.types, "`"+pair[0]+"`") {
				found = true
			}
		}
		if !found {
			t.Errorf("the operator sets %s with reason %s; conditions.md has no row for that type and reason", pair[0], pair[1])
		}
	}
}

// libraryGoHas looks for the reason as library-go's condition code sets it.
func libraryGoHas(t *testing.T, reason string) bool {
	t.Helper()
	found := false
	root := filepath.Join("..", "vendor", "github.com", "openshift", "library-go", "pkg")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || found || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found = strings.Contains(string(data), `WithReason("`+reason+`")`) || strings.Contains(string(data), `Reason: "`+reason+`"`) ||
			strings.Contains(string(data), `Reason:  "`+reason+`"`)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
