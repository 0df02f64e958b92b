// Command testlog reads the logs of `go test -v` for CI (.ci/run): it counts the tests that passed,
// failed and skipped, prints each skipped test with the reason it logged, and fails when a test
// skipped that must run.
//
// Usage:
//
//	testlog tally -label LABEL -rc RC [-allowed ERE] [-pattern ERE] LOG
//	testlog total LOG...
//
// tally prints "tests on LABEL: N passed, N failed, N skipped"; exits RC when RC is not 0; prints
// "skipped on LABEL: NAME:" and the lines the test logged between its RUN and SKIP lines for each
// skipped test whose name starts with a match of -pattern (default Test(Acc|Chaos)); exits 1 when
// one of them is not matched whole by -allowed (default: none may skip).
// total prints "tests: N passed, N failed, N skipped", the sums over every LOG.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its arguments and outputs; it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: testlog tally -label LABEL -rc RC [-allowed ERE] [-pattern ERE] LOG | total LOG...")
		return 2
	}
	switch args[0] {
	case "tally":
		return tallyCmd(args[1:], stdout, stderr)
	case "total":
		return totalCmd(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "testlog: unknown command %q (tally or total)\n", args[0])
	return 2
}

func tallyCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tally", flag.ContinueOnError)
	fs.SetOutput(stderr)
	label := fs.String("label", "", "what the tests ran on, for the printed lines")
	rc := fs.Int("rc", 0, "the exit code of the test run")
	allowed := fs.String("allowed", "", "ERE of the whole names of tests that may skip")
	pattern := fs.String("pattern", "Test(Acc|Chaos)", "ERE the names of checked skipped tests start with")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "testlog: tally takes one LOG")
		return 2
	}
	lines, err := readLines(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "testlog: %v\n", err)
		return 1
	}
	code, err := tally(lines, *label, *rc, *allowed, *pattern, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "testlog: %v\n", err)
		return 1
	}
	return code
}

// tally writes the report of one log and returns the exit code: rc when the run failed, 1 when a
// checked test skipped that allowed does not name.
func tally(lines []string, label string, rc int, allowed, pattern string, stdout, stderr io.Writer) (int, error) {
	skipRE, err := regexp.Compile(`^\s*--- SKIP: ((?:` + pattern + `)[^ ]*) `)
	if err != nil {
		return 0, fmt.Errorf("-pattern: %w", err)
	}
	allowedRE, err := regexp.Compile(`^(?:` + allowed + `)$`)
	if err != nil {
		return 0, fmt.Errorf("-allowed: %w", err)
	}
	c := count(lines)
	fmt.Fprintf(stdout, "\ntests on %s: %s\n", label, c)
	if rc != 0 {
		fmt.Fprintf(stderr, "ci: the tests on %s failed (exit %d)\n", label, rc)
		return rc, nil
	}
	var bad string
	for _, line := range lines {
		m := skipRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := m[1]
		fmt.Fprintf(stdout, "skipped on %s: %s:\n", label, name)
		for _, r := range reason(lines, name) {
			fmt.Fprintf(stdout, "  %s\n", r)
		}
		if !allowedRE.MatchString(name) {
			bad += " " + name
		}
	}
	if bad != "" {
		fmt.Fprintf(stderr, "ci: tests were skipped on %s; they must run there:%s\n", label, bad)
		return 1, nil
	}
	return 0, nil
}

// counts of a go test -v log: its "--- PASS", "--- FAIL" and "--- SKIP" lines, subtests included.
type counts struct{ passed, failed, skipped int }

func (c counts) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", c.passed, c.failed, c.skipped)
}

var (
	passRE = regexp.MustCompile(`^\s*--- PASS`)
	failRE = regexp.MustCompile(`^\s*--- FAIL`)
	skipRE = regexp.MustCompile(`^\s*--- SKIP`)
)

func count(lines []string) counts {
	var c counts
	for _, line := range lines {
		switch {
		case passRE.MatchString(line):
			c.passed++
		case failRE.MatchString(line):
			c.failed++
		case skipRE.MatchString(line):
			c.skipped++
		}
	}
	return c
}

// reason returns the lines go test -v printed between test name's "=== RUN" line and its
// "--- SKIP" line: what the test logged, t.Skip's reason among them.
func reason(lines []string, name string) []string {
	runLine, skipMark := "=== RUN   "+name, "--- SKIP: "+name+" ("
	var out []string
	in := false
	for _, line := range lines {
		switch {
		case line == runLine:
			in = true
		case in && strings.Contains(line, skipMark):
			in = false
		case in:
			out = append(out, line)
		}
	}
	return out
}

func totalCmd(logs []string, stdout, stderr io.Writer) int {
	if len(logs) == 0 {
		fmt.Fprintln(stderr, "testlog: total takes one LOG or more")
		return 2
	}
	var sum counts
	for _, log := range logs {
		lines, err := readLines(log)
		if err != nil {
			fmt.Fprintf(stderr, "testlog: %v\n", err)
			return 1
		}
		c := count(lines)
		sum.passed, sum.failed, sum.skipped = sum.passed+c.passed, sum.failed+c.failed, sum.skipped+c.skipped
	}
	fmt.Fprintf(stdout, "tests: %s\n", sum)
	return 0
}

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// As awk and grep read it: a last newline ends the last line, it starts none.
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), nil
}
