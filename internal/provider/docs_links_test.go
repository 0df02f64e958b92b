package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every gating recipe (examples/gating/<recipe>) has a guide page of its own that shows its
// main.tf, the gating guide's index links to it, and the testing guide lists its tests.
func TestEveryRecipeHasAGuidePage(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "..", "examples", "gating", "*", "main.tf"))
	if err != nil || len(dirs) < 10 {
		t.Fatalf("found %d recipes (%v): the glob is broken", len(dirs), err)
	}
	guides := filepath.Join("..", "..", "templates", "guides")
	index := readText(t, filepath.Join(guides, "gating.md.tmpl"))
	testingGuide := readText(t, filepath.Join(guides, "testing.md.tmpl"))
	for _, mainTF := range dirs {
		recipe := filepath.Base(filepath.Dir(mainTF))
		page := readText(t, filepath.Join(guides, recipe+".md.tmpl"))
		if want := `{{ tffile "examples/gating/` + recipe + `/main.tf" }}`; !strings.Contains(page, want) {
			t.Errorf("templates/guides/%s.md.tmpl does not show the recipe (%s)", recipe, want)
		}
		if want := "](" + recipe + ".md)"; !strings.Contains(index, want) {
			t.Errorf("templates/guides/gating.md.tmpl does not link %s.md", recipe)
		}
		if want := "`examples/gating/" + recipe + "/tests/`"; !strings.Contains(testingGuide, want) {
			t.Errorf("templates/guides/testing.md.tmpl does not list %s", want)
		}
	}
}

var (
	mdLink  = regexp.MustCompile(`\]\(([^)#\s]*\.md)(#[^)\s]*)?\)`)
	heading = regexp.MustCompile("(?m)^#{1,6} (.+)$")
	notSlug = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// Every relative link of the README and docs/ to a Markdown file names a file that exists, and a
// heading of it where it has an anchor (as GitHub and the registries make anchors of headings).
func TestDocsLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	files := []string{filepath.Join(root, "README.md")}
	for _, pattern := range []string{"docs/*.md", "docs/*/*.md"} {
		more, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, more...)
	}
	for _, f := range files {
		for _, m := range mdLink.FindAllStringSubmatch(readText(t, f), -1) {
			target, anchor := m[1], strings.TrimPrefix(m[2], "#")
			if strings.Contains(target, "://") {
				continue
			}
			path := filepath.Join(filepath.Dir(f), target)
			text, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s links %s, which does not exist", f, m[0])
				continue
			}
			if anchor != "" && !hasAnchor(string(text), anchor) {
				t.Errorf("%s links %s: no heading of %s makes the anchor %q", f, m[0], target, anchor)
			}
		}
	}
}

// hasAnchor: a heading of text slugs to anchor (lower case, punctuation dropped, spaces to dashes).
func hasAnchor(text, anchor string) bool {
	for _, h := range heading.FindAllStringSubmatch(text, -1) {
		slug := strings.ReplaceAll(notSlug.ReplaceAllString(strings.ToLower(strings.TrimSpace(h[1])), ""), " ", "-")
		if slug == anchor {
			return true
		}
	}
	return false
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
