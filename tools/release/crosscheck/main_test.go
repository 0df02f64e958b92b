package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheck type-checks a tiny module whose f is right on Linux, wrong on Windows, missing on
// macOS, and whose int constant overflows on 32-bit platforms: check must pass only on linux_amd64.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod":       "module example.com/m\n\ngo 1.22\n",
		"main.go":      "package main\n\nfunc main() { f() }\n",
		"f_linux.go":   "package main\n\nfunc f() {}\n",
		"f_windows.go": "package main\n\nfunc f() { var s string = 1; _ = s }\n",
		"f_freebsd.go": "package main\n\nfunc f() {}\n",
		"int.go":       "//go:build !freebsd\n\npackage main\n\nvar big int = 1 << 40\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		target  string
		wantErr string // "" for none
	}{
		{"linux_amd64", ""},
		{"windows_amd64", "cannot use 1"},
		{"darwin_arm64", "undefined: f"},
		{"linux_386", "(overflows)"},
		{"freebsd_arm", ""}, // int.go is not built there
		{"linux", "is not GOOS_GOARCH"},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			_, err := check(dir, tt.target)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("check: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("check: %v, want an error with %q", err, tt.wantErr)
			}
		})
	}
}

// TestTargets reads the repository's .goreleaser.yml: the ten platforms of a release.
func TestTargets(t *testing.T) {
	got, err := targets("../../../.goreleaser.yml")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < minTargets || !slices.Contains(got, "linux_amd64") || !slices.Contains(got, "windows_arm64") {
		t.Fatalf("targets = %v, want at least %d with linux_amd64 and windows_arm64", got, minTargets)
	}
	if _, err := targets(filepath.Join(t.TempDir(), "none.yml")); err == nil {
		t.Fatal("targets of a missing file: no error")
	}
}
