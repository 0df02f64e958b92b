// Command testlog reads the logs of `go test -v` for CI (.ci/run): it counts the tests that passed,
// failed and skipped, prints each skipped test with the reason it logged, and fails when a test
// skipped that must run.
//
// Usage:
//
//	testlog tally -label LABEL -rc RC [-allowed ERE] [-pattern ERE] LOG
//	testlog total LOG...
//	testlog slowest -label LABEL [-n N] LOG
//
// tally prints "tests on LABEL: N passed, N failed, N skipped"; exits RC when RC is not 0; prints
// "skipped on LABEL: NAME:" and the lines the test logged between its RUN and SKIP lines for each
// skipped test whose name starts with a match of -pattern (default Test(Acc|Chaos)); exits 1 when
// one of them is not matched whole by -allowed (default: none may skip).
// total prints "tests: N passed, N failed, N skipped", the sums over every LOG.
// slowest prints the N (default 20) top-level tests of LOG that took longest, with their seconds:
// where a leg's time goes.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its arguments and outputs; it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: testlog tally -label LABEL -rc RC [-allowed ERE] [-pattern ERE] LOG | total LOG... | slowest -label LABEL [-n N] LOG")
		return 2
	}
	switch args[0] {
	case "tally":
		return tallyCmd(args[1:], stdout, stderr)
	case "total":
		return totalCmd(args[1:], stdout, stderr)
	case "slowest":
		return slowestCmd(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "testlog: unknown command %q (tally, total or slowest)\n", args[0])
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

// reason returns what test name logged: the lines go test -v attributes to it, those after its
// "=== RUN", "=== CONT" or "=== NAME" line up to the next such marker, until its "--- SKIP" line.
// Tests that run in parallel interleave their output; the markers say whose each line is.
func reason(lines []string, name string) []string {
	skipMark := "--- SKIP: " + name + " ("
	var out []string
	in := false
	for _, line := range lines {
		if m := markerRE.FindStringSubmatch(line); m != nil {
			in = m[2] == name && m[1] != "PAUSE"
			continue
		}
		if strings.Contains(line, skipMark) {
			if in {
				break
			}
			continue
		}
		if in {
			out = append(out, line)
		}
	}
	return out
}

// markerRE is go test -v's line that says whose output follows (RUN, CONT, NAME) or that a test
// waits for its parallel turn (PAUSE).
var markerRE = regexp.MustCompile(`^=== (RUN|CONT|NAME|PAUSE)\s+(\S+)$`)

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

func slowestCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("slowest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	label := fs.String("label", "", "what the tests ran on, for the printed lines")
	n := fs.Int("n", 20, "how many tests to print")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "testlog: slowest takes one LOG")
		return 2
	}
	lines, err := readLines(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "testlog: %v\n", err)
		return 1
	}
	all := timings(lines)
	top := all[:min(*n, len(all))]
	fmt.Fprintf(stdout, "slowest tests on %s (%d of %d):\n", *label, len(top), len(all))
	for _, tm := range top {
		fmt.Fprintf(stdout, "%9.2fs  %s\n", tm.seconds, tm.name)
	}
	return 0
}

// timing is a top-level test that passed or failed, and the seconds go test -v gave it.
type timing struct {
	name    string
	seconds float64
}

// doneRE is a top-level test's last line (subtests' are indented: their time is their parent's).
var doneRE = regexp.MustCompile(`^--- (?:PASS|FAIL): (\S+) \(([0-9.]+)s\)`)

// timings are the top-level tests of a log, slowest first (by name where equal).
func timings(lines []string) []timing {
	var out []timing
	for _, line := range lines {
		if m := doneRE.FindStringSubmatch(line); m != nil {
			secs, err := strconv.ParseFloat(m[2], 64)
			if err == nil {
				out = append(out, timing{m[1], secs})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b timing) int {
		return cmp.Or(cmp.Compare(b.seconds, a.seconds), strings.Compare(a.name, b.name))
	})
	return out
}

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// As awk and grep read it: a last newline ends the last line, it starts none.
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), nil
}
