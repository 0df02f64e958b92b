// Command terraform-versions holds the version logic of tools/terraform-versions.sh, which calls it:
//
//	latest MODULE                            the newest release of MODULE the Go module proxy serves
//	at-least LABEL TF_VERSION TOFU_VERSION   exit 0 if LABEL ("Terraform v1.5.7", "OpenTofu v1.6.3",
//	                                         a binary's version line) is Terraform TF_VERSION or later,
//	                                         or OpenTofu TOFU_VERSION or later; exit 1 if not
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, goList{}))
}

// proxy is what latest asks the Go module proxy.
type proxy interface {
	// versions lists the versions the proxy lists for module.
	versions(module string) ([]string, error)
	// served reports whether the proxy serves module at version ("1.16.4", no v).
	served(module, version string) bool
}

// run is main with its arguments, outputs and proxy; it returns the exit code.
func run(args []string, stdout, stderr io.Writer, p proxy) int {
	switch {
	case len(args) == 2 && args[0] == "latest":
		v, err := latest(args[1], p)
		if err != nil {
			fmt.Fprintf(stderr, "terraform-versions: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, v)
		return 0
	case len(args) == 4 && args[0] == "at-least":
		if atLeast(args[1], args[2], args[3]) {
			return 0
		}
		return 1
	}
	fmt.Fprintln(stderr, "usage: terraform-versions latest MODULE | at-least LABEL TF_VERSION TOFU_VERSION")
	return 2
}

var release = regexp.MustCompile(`^v([0-9]+)\.([0-9]+)\.([0-9]+)$`)

// latest returns the newest release the proxy lists, or a later one it serves: it serves releases
// it does not list (Terraform 1.14 to 1.16 in December 2026), so a list alone understates the
// newest. It asks for the patches after the listed one, then each next minor's, until four in a
// row are refused (some are: Terraform 1.15.4); a minor none of whose first four is served ends
// the search.
func latest(module string, p proxy) (string, error) {
	listed, err := p.versions(module)
	if err != nil {
		return "", err
	}
	var newest [3]int
	found := false
	for _, v := range listed {
		if m := release.FindStringSubmatch(v); m != nil {
			var n [3]int
			for i := range n {
				n[i], _ = strconv.Atoi(m[i+1]) // digits only, by the pattern
			}
			if !found || less(newest[:], n[:]) {
				newest, found = n, true
			}
		}
	}
	if !found {
		return "", fmt.Errorf("the Go module proxy lists no release of %s", module)
	}
	major, minor, patch := newest[0], newest[1], newest[2]
	for {
		for misses := 0; misses < 4; {
			patch++
			if p.served(module, fmt.Sprintf("%d.%d.%d", major, minor, patch)) {
				newest, misses = [3]int{major, minor, patch}, 0
			} else {
				misses++
			}
		}
		if newest[0] != major || newest[1] != minor {
			break
		}
		minor, patch = minor+1, -1
	}
	return fmt.Sprintf("%d.%d.%d", newest[0], newest[1], newest[2]), nil
}

// atLeast reports whether label names Terraform tfMin or later, or OpenTofu tofuMin or later;
// a prerelease counts as its release. An empty or unreadable label is not at least anything.
func atLeast(label, tfMin, tofuMin string) bool {
	floor := tfMin
	if strings.HasPrefix(label, "OpenTofu") {
		floor = tofuMin
	}
	i := strings.LastIndex(label, " v")
	if i < 0 {
		return false
	}
	version, _, _ := strings.Cut(label[i+2:], "-")
	have, ok1 := numbers(version)
	want, ok2 := numbers(floor)
	return ok1 && ok2 && !less(have, want)
}

// numbers splits "1.5.7" into 1, 5, 7; ok is false unless every part is a number.
func numbers(version string) (n []int, ok bool) {
	for _, part := range strings.Split(version, ".") {
		i, err := strconv.Atoi(part)
		if err != nil || i < 0 {
			return nil, false
		}
		n = append(n, i)
	}
	return n, true
}

// less compares versions part by part; a missing part counts as less (1.8 < 1.8.0).
func less(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// goList asks the proxy through the Go on PATH, outside any module (go list -m needs none with
// -versions and a path@), with no toolchain download.
type goList struct{}

func (goList) command(args ...string) *exec.Cmd {
	cmd := exec.Command("go", append([]string{"list", "-m"}, args...)...)
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=")
	return cmd
}

func (g goList) versions(module string) ([]string, error) {
	cmd := g.command("-versions", module)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m -versions %s: %w", module, err)
	}
	return strings.Fields(string(out)), nil
}

func (g goList) served(module, version string) bool {
	return g.command(module+"@v"+version).Run() == nil
}
