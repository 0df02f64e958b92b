package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// goTestLog is go test -v output in the shapes CI sees: a passed test with a subtest, a failed one,
// a skipped acceptance test (with its reason, paused by t.Parallel while a unit test ran, then
// logging beside a parallel test that passes), a skipped unit test and a skipped subtest.
const goTestLog = `=== RUN   TestAccA
=== RUN   TestAccA/sub
--- PASS: TestAccA (0.10s)
    --- PASS: TestAccA/sub (0.05s)
=== RUN   TestAccB
    b_test.go:9: want 1, got 2
--- FAIL: TestAccB (0.01s)
=== RUN   TestAccShare
=== PAUSE TestAccShare
=== RUN   TestUnit
    unit_test.go:3: needs a binary with functions
--- SKIP: TestUnit (0.00s)
=== RUN   TestAccSlow
=== PAUSE TestAccSlow
=== CONT  TestAccShare
    share_test.go:12: Kafka 3.9.1 has no share groups (KIP-932)
=== CONT  TestAccSlow
    slow_test.go:4: planned
=== NAME  TestAccShare
    share_test.go:13: needs Kafka 4.0
--- SKIP: TestAccShare (0.00s)
--- PASS: TestAccSlow (2.50s)
=== RUN   TestChaosX
=== RUN   TestChaosX/node
    x_test.go:5: no cluster
    --- SKIP: TestChaosX/node (0.00s)
--- PASS: TestChaosX (0.00s)
FAIL
`

func writeLog(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRun(t *testing.T) {
	log := writeLog(t, "test.log", goTestLog)
	missing := filepath.Join(t.TempDir(), "none.log")
	passing := writeLog(t, "pass.log", "=== RUN   TestA\n--- PASS: TestA (0.00s)\nPASS\n")
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{
			name:       "the run failed: counts, then its exit code, skipped tests unchecked",
			args:       []string{"tally", "-label", "Kafka 4.4.0", "-rc", "2", log},
			wantCode:   2,
			wantStdout: "\ntests on Kafka 4.4.0: 4 passed, 1 failed, 3 skipped\n",
			wantStderr: "ci: the tests on Kafka 4.4.0 failed (exit 2)\n",
		},
		{
			name:     "acceptance and chaos tests that skipped, none allowed",
			args:     []string{"tally", "-label", "Kafka 4.4.0", "-rc", "0", "-allowed", "", log},
			wantCode: 1,
			wantStdout: "\ntests on Kafka 4.4.0: 4 passed, 1 failed, 3 skipped\n" +
				"skipped on Kafka 4.4.0: TestAccShare:\n" +
				"      share_test.go:12: Kafka 3.9.1 has no share groups (KIP-932)\n" +
				"      share_test.go:13: needs Kafka 4.0\n" +
				"skipped on Kafka 4.4.0: TestChaosX/node:\n" +
				"      x_test.go:5: no cluster\n",
			wantStderr: "ci: tests were skipped on Kafka 4.4.0; they must run there: TestAccShare TestChaosX/node\n",
		},
		{
			name:     "only allowed tests skipped: exit 0",
			args:     []string{"tally", "-label", "Kafka 3.9.1", "-rc", "0", "-allowed", "TestAccShare|TestChaosX/node", log},
			wantCode: 0,
			wantStdout: "\ntests on Kafka 3.9.1: 4 passed, 1 failed, 3 skipped\n" +
				"skipped on Kafka 3.9.1: TestAccShare:\n" +
				"      share_test.go:12: Kafka 3.9.1 has no share groups (KIP-932)\n" +
				"      share_test.go:13: needs Kafka 4.0\n" +
				"skipped on Kafka 3.9.1: TestChaosX/node:\n" +
				"      x_test.go:5: no cluster\n",
		},
		{
			name:     "allowed matches whole names only",
			args:     []string{"tally", "-label", "L", "-rc", "0", "-allowed", "TestAcc|TestChaosX/node", log},
			wantCode: 1,
			wantStdout: "\ntests on L: 4 passed, 1 failed, 3 skipped\n" +
				"skipped on L: TestAccShare:\n" +
				"      share_test.go:12: Kafka 3.9.1 has no share groups (KIP-932)\n" +
				"      share_test.go:13: needs Kafka 4.0\n" +
				"skipped on L: TestChaosX/node:\n" +
				"      x_test.go:5: no cluster\n",
			wantStderr: "ci: tests were skipped on L; they must run there: TestAccShare\n",
		},
		{
			name:     "pattern Test checks unit tests too",
			args:     []string{"tally", "-label", "Terraform v1.5.7", "-rc", "0", "-allowed", "TestAccShare|TestChaosX/node", "-pattern", "Test", log},
			wantCode: 1,
			wantStdout: "\ntests on Terraform v1.5.7: 4 passed, 1 failed, 3 skipped\n" +
				"skipped on Terraform v1.5.7: TestUnit:\n" +
				"      unit_test.go:3: needs a binary with functions\n" +
				"skipped on Terraform v1.5.7: TestAccShare:\n" +
				"      share_test.go:12: Kafka 3.9.1 has no share groups (KIP-932)\n" +
				"      share_test.go:13: needs Kafka 4.0\n" +
				"skipped on Terraform v1.5.7: TestChaosX/node:\n" +
				"      x_test.go:5: no cluster\n",
			wantStderr: "ci: tests were skipped on Terraform v1.5.7; they must run there: TestUnit\n",
		},
		{
			name:       "total sums every log",
			args:       []string{"total", log, passing},
			wantCode:   0,
			wantStdout: "tests: 5 passed, 1 failed, 3 skipped\n",
		},
		{
			name: "slowest: top-level tests that passed or failed, slowest first, ties by name",
			args: []string{"slowest", "-label", "Kafka 4.4.0", "-n", "3", log},
			wantStdout: "slowest tests on Kafka 4.4.0 (3 of 4):\n" +
				"     2.50s  TestAccSlow\n" +
				"     0.10s  TestAccA\n" +
				"     0.01s  TestAccB\n",
		},
		{
			name:       "slowest of a log with fewer tests than asked",
			args:       []string{"slowest", "-label", "L", passing},
			wantStdout: "slowest tests on L (1 of 1):\n     0.00s  TestA\n",
		},
		{
			name:       "a log that is not there",
			args:       []string{"total", missing},
			wantCode:   1,
			wantStderr: "testlog: open " + missing + ": no such file or directory\n",
		},
		{
			name:       "a pattern that is no regular expression",
			args:       []string{"tally", "-label", "L", "-rc", "0", "-pattern", "Test(", log},
			wantCode:   1,
			wantStderr: "testlog: -pattern: error parsing regexp: missing closing ): `^\\s*--- SKIP: ((?:Test()[^ ]*) `\n",
		},
		{
			name:       "an unknown command",
			args:       []string{"count", log},
			wantCode:   2,
			wantStderr: "testlog: unknown command \"count\" (tally, total or slowest)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d", code, tt.wantCode)
			}
			if got := stdout.String(); got != tt.wantStdout {
				t.Errorf("stdout:\n%q\nwant:\n%q", got, tt.wantStdout)
			}
			if got := stderr.String(); got != tt.wantStderr {
				t.Errorf("stderr:\n%q\nwant:\n%q", got, tt.wantStderr)
			}
		})
	}
}
