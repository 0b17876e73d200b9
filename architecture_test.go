package sdk_test

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layerRow is one row of ARCHITECTURE.md's layer table.
type layerRow struct {
	line     int             // line number in ARCHITECTURE.md
	packages []string        // the package column, relative to the module
	imports  map[string]bool // module packages named in the imports column
	anyAbove bool            // the imports column says "everything above"
	text     string          // the imports column as written
}

// modulePackage is what the non-test files of one package import.
type modulePackage struct {
	internal   map[string]bool // packages of this module, relative to it
	thirdParty map[string]bool // required modules, by module path
}

// TestArchitectureLayers keeps ARCHITECTURE.md's layer table true: every
// package of the root module has a row; a row's imports column names exactly
// the module packages its non-test files import (in backquotes, or
// "everything above"), plus each third-party module by name; and a package
// imports only packages in rows above its own.
func TestArchitectureLayers(t *testing.T) {
	module, required := readGoMod(t)
	pkgs := modulePackages(t, module, required)
	rows := readLayerTable(t)

	rowOf := map[string]int{}
	for i, r := range rows {
		for _, p := range r.packages {
			if _, dup := rowOf[p]; dup {
				t.Errorf("ARCHITECTURE.md:%d: `%s` has two rows in the layer table; keep one", r.line, p)
			}
			rowOf[p] = i
			if _, ok := pkgs[p]; !ok {
				t.Errorf("ARCHITECTURE.md:%d: `%s` is not a package of the root module; remove it from the layer table or fix its name", r.line, p)
			}
		}
		for p := range r.imports {
			if _, ok := pkgs[p]; !ok {
				t.Errorf("ARCHITECTURE.md:%d: the imports column names `%s`, which is not a package of the root module; backquote only module packages", r.line, p)
			}
		}
	}

	for _, name := range slices.Sorted(maps.Keys(pkgs)) {
		i, ok := rowOf[name]
		if !ok {
			t.Errorf("package %s has no row in ARCHITECTURE.md's layer table; add one (layer | `%s` | job | imports), below every package it imports", name, name)
			continue
		}
		r, pkg := rows[i], pkgs[name]
		for _, imp := range slices.Sorted(maps.Keys(pkg.internal)) {
			if j, ok := rowOf[imp]; ok && j >= i {
				t.Errorf("ARCHITECTURE.md:%d: %s imports %s, which is not in a row above it (line %d); imports flow down the table: move the row, or remove the import if it is a layering bug", r.line, name, imp, rows[j].line)
			}
			if !r.anyAbove && !r.imports[imp] {
				t.Errorf("ARCHITECTURE.md:%d: %s imports %s; add `%s` to its imports column", r.line, name, imp, imp)
			}
		}
		if !r.anyAbove {
			for _, imp := range slices.Sorted(maps.Keys(r.imports)) {
				if !pkg.internal[imp] {
					t.Errorf("ARCHITECTURE.md:%d: the imports column of %s names `%s`, which it does not import; remove it", r.line, name, imp)
				}
			}
		}
		for _, mod := range slices.Sorted(maps.Keys(pkg.thirdParty)) {
			if short := moduleName(mod); !strings.Contains(r.text, short) {
				t.Errorf("ARCHITECTURE.md:%d: %s imports the third-party module %s; name it (%s) in its imports column", r.line, name, mod, short)
			}
		}
	}
}

// Size bounds (issue 22): a file a reviewer can hold in mind, and functions
// short enough to read at once where the transport and JSON-RPC code is
// densest.
const (
	maxFileLines = 900
	maxFuncLines = 80
)

// shortFuncPackages are the packages whose every function stays within
// maxFuncLines.
var shortFuncPackages = []string{"transport/mcphttp", "jsonrpc"}

// generated matches the standard marker of a generated file
// (https://go.dev/s/generatedcode).
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// TestArchitectureSizes keeps the code base readable: no non-test,
// non-generated Go file of the root module is over maxFileLines lines, and
// no function (or method) of a package in shortFuncPackages is over
// maxFuncLines, counted from its func keyword to its closing brace.
func TestArchitectureSizes(t *testing.T) {
	fset := token.NewFileSet()
	for _, p := range moduleGoFiles(t) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if generated.Match(src) {
			continue
		}
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
			t.Errorf("%s: %d lines, over %d: split it by job (a pure move, in a commit of its own)", p, n, maxFileLines)
		}
		if !slices.Contains(shortFuncPackages, filepath.ToSlash(filepath.Dir(p))) {
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			from, to := fset.Position(fn.Pos()), fset.Position(fn.End())
			if n := to.Line - from.Line + 1; n > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines, over %d: split it", p, from.Line, fn.Name.Name, n, maxFuncLines)
			}
		}
	}
}

// mcpSurfaceCeiling bounds how many identifiers package mcp exports
// (see exportedNames). Issue 22 asks for at most 900; the package exported
// 1154 before its multi-process session state, header codec and
// redundant accessors moved out (992), then took in the API of
// per-request visibility and of typed client methods (1030), then gave
// the tasks API to package tasks (938), then the tasks capability types,
// the _meta key constants and the empty notification params (897): the
// target is reached, and the ceiling is the target. Do not raise it to
// let a name in: move something out of the core, or put the new name in a
// package of its own.
const (
	mcpSurfaceCeiling = 900
	mcpSurfaceTarget  = 900
)

// TestMCPSurface keeps package mcp's exported surface from growing back:
// a core that every user reads in go doc stays small, and machinery lives
// in packages of its own (mcp/shared, internal/mcpheader).
func TestMCPSurface(t *testing.T) {
	total, perFile := exportedNames(t, "mcp")
	if total > mcpSurfaceCeiling {
		files := slices.SortedFunc(maps.Keys(perFile), func(a, b string) int { return perFile[b] - perFile[a] })
		var top []string
		for _, f := range files[:min(8, len(files))] {
			top = append(top, f+": "+strconv.Itoa(perFile[f]))
		}
		t.Errorf("package mcp exports %d identifiers, above the ceiling of %d (issue 22's target: %d); move machinery out of the core instead of adding to it. Largest files: %s",
			total, mcpSurfaceCeiling, mcpSurfaceTarget, strings.Join(top, ", "))
	}
	t.Logf("package mcp exports %d identifiers (ceiling %d, target %d)", total, mcpSurfaceCeiling, mcpSurfaceTarget)
}

// TestExportedNamesCounting checks the counting rule on a small package.
func TestExportedNamesCounting(t *testing.T) {
	dir := t.TempDir()
	src := `package p

const A, b = 1, 2 // 1
var C int         // 1
type T struct {   // 1
	F, g int      // 1
	U             // embedded: 0
}
type U struct{}                 // 1
type G[X any] struct{ V X }     // 2
type I interface{ M(); n() }    // 2
type t struct{ H int }          // 0
func F()                        {} // 1
func (T) M()                    {} // 1
func (*T) m()                   {} // 0
func (G[X]) M()                 {} // 1
func (t) M()                    {} // 0
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte("package p\n\nfunc Test() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if total, _ := exportedNames(t, dir); total != 12 {
		t.Errorf("counted %d exported identifiers, want 12", total)
	}
}

// exportedNames counts the identifiers the non-test files of the package
// in dir export: top-level names (constants, variables, types, functions),
// exported methods of exported types, and the exported fields of exported
// struct types and methods of exported interface types (embedded fields
// and interfaces count nothing). It returns the total and the count per
// file.
func exportedNames(t *testing.T, dir string) (int, map[string]int) {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	total, perFile := 0, map[string]int{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() && (d.Recv == nil || exportedReceiver(d.Recv.List[0].Type)) {
					n++
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					n += exportedInSpec(spec)
				}
			}
		}
		total += n
		perFile[name] = n
	}
	return total, perFile
}

// exportedReceiver reports whether a method's receiver type is exported.
func exportedReceiver(x ast.Expr) bool {
	for {
		switch e := x.(type) {
		case *ast.StarExpr:
			x = e.X
		case *ast.IndexExpr:
			x = e.X
		case *ast.IndexListExpr:
			x = e.X
		case *ast.Ident:
			return e.IsExported()
		default:
			return false
		}
	}
}

// exportedInSpec counts the exported names of one constant, variable or
// type spec, with the fields or methods of an exported type.
func exportedInSpec(spec ast.Spec) int {
	n := 0
	switch s := spec.(type) {
	case *ast.ValueSpec:
		for _, id := range s.Names {
			if id.IsExported() {
				n++
			}
		}
	case *ast.TypeSpec:
		if !s.Name.IsExported() {
			return 0
		}
		n++
		var members *ast.FieldList
		switch tt := s.Type.(type) {
		case *ast.StructType:
			members = tt.Fields
		case *ast.InterfaceType:
			members = tt.Methods
		}
		if members != nil {
			for _, m := range members.List {
				for _, id := range m.Names {
					if id.IsExported() {
						n++
					}
				}
			}
		}
	}
	return n
}

// readGoMod returns the root module's path and the modules it requires.
func readGoMod(t *testing.T) (module string, required []string) {
	t.Helper()
	data, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	inBlock := false
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "module":
			module = f[1]
		case len(f) == 2 && f[0] == "require" && f[1] == "(":
			inBlock = true
		case len(f) >= 1 && f[0] == ")":
			inBlock = false
		case len(f) >= 3 && f[0] == "require":
			required = append(required, f[1])
		case inBlock && len(f) >= 2:
			required = append(required, f[0])
		}
	}
	if module == "" {
		t.Fatal("go.mod has no module line")
	}
	return module, required
}

// modulePackages returns every package of the root module (a directory with
// non-test Go files, outside nested modules and testdata) with what its
// non-test files import, whatever their build constraints.
func modulePackages(t *testing.T, module string, required []string) map[string]*modulePackage {
	t.Helper()
	pkgs := map[string]*modulePackage{}
	fset := token.NewFileSet()
	for _, p := range moduleGoFiles(t) {
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.ToSlash(filepath.Dir(p))
		pkg := pkgs[name]
		if pkg == nil {
			pkg = &modulePackage{internal: map[string]bool{}, thirdParty: map[string]bool{}}
			pkgs[name] = pkg
		}
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			switch {
			case imp == module || strings.HasPrefix(imp, module+"/"):
				pkg.internal[strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")] = true
			case strings.Contains(strings.SplitN(imp, "/", 2)[0], "."):
				pkg.thirdParty[moduleOf(imp, required)] = true
			}
		}
	}
	return pkgs
}

// moduleGoFiles returns the non-test Go files of the root module (outside
// nested modules, testdata and directories starting with . or _).
func moduleGoFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			base := d.Name()
			if p != "." && (base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); p != "." && err == nil {
				return filepath.SkipDir // a module of its own
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// moduleOf returns the required module that provides the package imp.
func moduleOf(imp string, required []string) string {
	best := imp
	for _, m := range required {
		if (imp == m || strings.HasPrefix(imp, m+"/")) && (best == imp || len(m) > len(best)) {
			best = m
		}
	}
	return best
}

// moduleName is how the table names a third-party module: the last element
// of its path, leaving out a major-version suffix (go-jose, go-redis), or
// the whole path of a golang.org/x module (golang.org/x/term).
func moduleName(mod string) string {
	if strings.HasPrefix(mod, "golang.org/x/") {
		return mod
	}
	if regexp.MustCompile(`/v[0-9]+$`).MatchString(mod) {
		mod = path.Dir(mod)
	}
	return path.Base(mod)
}

// readLayerTable parses the first table of ARCHITECTURE.md, whose header is
// "| layer | package | job | imports |".
func readLayerTable(t *testing.T) []layerRow {
	t.Helper()
	f, err := os.Open("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	backquoted := regexp.MustCompile("`([^`]+)`")
	var rows []layerRow
	inTable := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if !inTable {
			inTable = line == "| layer | package | job | imports |"
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		if strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 4 {
			t.Fatalf("ARCHITECTURE.md:%d: a layer table row has %d cells, want 4 (layer | package | job | imports); a cell cannot hold a |", n, len(cells))
		}
		r := layerRow{line: n, imports: map[string]bool{}, text: cells[3]}
		for _, m := range backquoted.FindAllStringSubmatch(cells[1], -1) {
			r.packages = append(r.packages, m[1])
		}
		if len(r.packages) == 0 {
			t.Errorf("ARCHITECTURE.md:%d: the package column names no package; write each in backquotes", n)
		}
		for _, m := range backquoted.FindAllStringSubmatch(cells[3], -1) {
			r.imports[m[1]] = true
		}
		r.anyAbove = strings.Contains(cells[3], "everything above")
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal(`ARCHITECTURE.md has no layer table (header "| layer | package | job | imports |")`)
	}
	return rows
}
