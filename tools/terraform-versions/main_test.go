package main

import (
	"bytes"
	"errors"
	"testing"
)

// fakeProxy lists listed and serves those and serves; it records what was asked.
type fakeProxy struct {
	listed []string
	serves map[string]bool
	err    error
	asked  []string
}

func (f *fakeProxy) versions(string) ([]string, error) { return f.listed, f.err }

func (f *fakeProxy) served(_, version string) bool {
	f.asked = append(f.asked, version)
	return f.serves[version]
}

func set(versions ...string) map[string]bool {
	m := map[string]bool{}
	for _, v := range versions {
		m[v] = true
	}
	return m
}

func TestLatest(t *testing.T) {
	tests := []struct {
		name      string
		proxy     fakeProxy
		want      string
		wantAsked int
		wantErr   string
	}{
		{
			name:      "nothing served beyond the list: the newest listed release, prereleases ignored",
			proxy:     fakeProxy{listed: []string{"github.com/hashicorp/terraform", "v1.9.0", "v1.13.3", "v1.10.2", "v1.14.0-rc1"}},
			want:      "1.13.3",
			wantAsked: 4 + 4, // 1.13.4 to 1.13.7, then 1.14.0 to 1.14.3
		},
		{
			name: "unlisted minors served, with a refused patch in between (Terraform in December 2026)",
			proxy: fakeProxy{
				listed: []string{"v1.13.3"},
				serves: set("1.14.0", "1.14.1", "1.15.0", "1.15.1", "1.15.2", "1.15.3", "1.15.5", "1.16.0", "1.16.4"),
			},
			want: "1.16.4",
			// 13: 4..7; 14: 0, 1, 2..5; 15: 0..3, 4 (refused), 5, 6..9; 16: 0, 1..4, 5..8; 17: 0..3.
			wantAsked: 4 + 6 + 10 + 9 + 4,
		},
		{
			name:      "a minor none of whose first four is served ends the search",
			proxy:     fakeProxy{listed: []string{"v1.6.3"}, serves: set("1.7.0", "1.8.4")},
			want:      "1.7.0",
			wantAsked: 4 + 5 + 4,
		},
		{
			name:    "no release listed",
			proxy:   fakeProxy{listed: []string{"github.com/opentofu/opentofu", "v1.6.0-alpha1"}},
			wantErr: "the Go module proxy lists no release of M",
		},
		{
			name:    "the list fails",
			proxy:   fakeProxy{err: errors.New("go list -m -versions M: exit status 1")},
			wantErr: "go list -m -versions M: exit status 1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := latest("M", &tt.proxy)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("latest = %q, want %q", got, tt.want)
			}
			if len(tt.proxy.asked) != tt.wantAsked {
				t.Errorf("asked the proxy for %d versions (%v), want %d", len(tt.proxy.asked), tt.proxy.asked, tt.wantAsked)
			}
		})
	}
}

func TestAtLeast(t *testing.T) {
	tests := []struct {
		name  string
		label string
		want  bool
	}{
		{name: "Terraform below", label: "Terraform v1.7.5", want: false},
		{name: "Terraform equal", label: "Terraform v1.8.0", want: true},
		{name: "Terraform above, minor compared as a number", label: "Terraform v1.13.3", want: true},
		{name: "Terraform prerelease counts as its release", label: "Terraform v1.8.0-rc1", want: true},
		{name: "OpenTofu below its own floor", label: "OpenTofu v1.6.3", want: false},
		{name: "OpenTofu at its own floor, below Terraform's", label: "OpenTofu v1.7.0", want: true},
		{name: "no version line (no binary)", label: "", want: false},
		{name: "a version that is no number", label: "Terraform vX", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := atLeast(tt.label, "1.8.0", "1.7.0"); got != tt.want {
				t.Errorf("atLeast(%q, 1.8.0, 1.7.0) = %v, want %v", tt.label, got, tt.want)
			}
		})
	}
}

func TestRun(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "latest", args: []string{"latest", "M"}, wantCode: 0, wantStdout: "1.5.7\n"},
		{name: "at-least: yes", args: []string{"at-least", "Terraform v1.5.7", "1.5.7", "1.6.3"}, wantCode: 0},
		{name: "at-least: no", args: []string{"at-least", "Terraform v1.5.7", "1.8.0", "1.7.0"}, wantCode: 1},
		{
			name:       "usage",
			args:       []string{"at-least", "Terraform v1.5.7"},
			wantCode:   2,
			wantStderr: "usage: terraform-versions latest MODULE | at-least LABEL TF_VERSION TOFU_VERSION\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr, &fakeProxy{listed: []string{"v1.5.7"}})
			if code != tt.wantCode || stdout.String() != tt.wantStdout || stderr.String() != tt.wantStderr {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q",
					code, stdout.String(), stderr.String(), tt.wantCode, tt.wantStdout, tt.wantStderr)
			}
		})
	}
}
