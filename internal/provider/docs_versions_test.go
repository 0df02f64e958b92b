package provider

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The Kafka versions guide's feature table: every row names, in its last two cells, at least one
// test below and one at or above the version that first serves the feature, and every test it
// names exists, so that the table cannot promise a test that was renamed or never written.
func TestFeatureTableNamesTests(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "kafka-versions.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, found := strings.Cut(string(guide), "## What each feature needs")
	if !found {
		t.Fatal(`the guide has no "## What each feature needs" section`)
	}
	tests := testFuncs(t, filepath.Join("..", ".."))
	testName := regexp.MustCompile("`(Test[A-Za-z0-9_]+)`")
	rows := 0
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) != 5 || cells[0] == "feature" {
			continue
		}
		rows++
		for i, side := range map[int]string{3: "below", 4: "above"} {
			names := testName.FindAllStringSubmatch(cells[i], -1)
			if len(names) == 0 {
				t.Errorf("row %q names no test %s", cells[0], side)
			}
			for _, n := range names {
				if !tests[n[1]] {
					t.Errorf("row %q names %s (%s), which no _test.go file defines", cells[0], n[1], side)
				}
			}
		}
	}
	if rows < 11 {
		t.Errorf("the feature table has %d rows, want the 11 features it covers", rows)
	}
}

// testFuncs is the name of every top-level func Test... in the module's _test.go files under root.
func testFuncs(t *testing.T, root string) map[string]bool {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]+)\(`)
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
