package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// unsupportedVersion matches how Kafka logs a request version it does not serve: 4.x throws
// UnsupportedVersionException, 3.x an InvalidRequestException "... which is not enabled".
var unsupportedVersion = regexp.MustCompile(`UnsupportedVersionException|unsupported version|which is not enabled`)

// TestMain checks, after every acceptance test has run, that the broker never saw a request version
// it does not serve (Kafka 4.x removed old protocol versions, KIP-896). tools/kafka.sh run exports
// the broker's log as KAFKA_BROKER_LOG (with KAFKA_BROKERS=N, every node's log, separated like
// PATH).
func TestMain(m *testing.M) {
	code := m.Run()
	if logPaths := os.Getenv("KAFKA_BROKER_LOG"); code == 0 && os.Getenv("TF_ACC") != "" && logPaths != "" {
		for _, logPath := range filepath.SplitList(logPaths) {
			data, err := os.ReadFile(logPath)
			switch {
			case err != nil:
				fmt.Fprintf(os.Stderr, "FAIL: read broker log %s: %v\n", logPath, err)
				code = 1
			case unsupportedVersion.Match(data):
				fmt.Fprintf(os.Stderr, "FAIL: broker log %s has an unsupported-version line: %s\n",
					logPath, unsupportedVersion.Find(data))
				code = 1
			default:
				fmt.Printf("broker log %s: no unsupported-version line (%d bytes checked)\n", logPath, len(data))
			}
		}
	}
	os.Exit(code)
}
