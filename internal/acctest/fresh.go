package acctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// FreshBroker starts a single-node broker of the test's own (tools/kafka.sh start with a private
// state dir, the Kafka release of KAFKA_VERSION like the suite's), for a test that needs a cluster
// no other test has touched, and stops it with the test. It returns the PLAINTEXT bootstrap
// address. It needs what `make testacc` needs (java and the cached jars): where the suite runs
// against a cluster tools/kafka.sh did not start (KAFKA_BROKER_LOG unset), the test is skipped.
func FreshBroker(t testing.TB) string {
	t.Helper()
	BootstrapServers(t)
	if os.Getenv("KAFKA_BROKER_LOG") == "" {
		t.Skip("needs a broker of its own from tools/kafka.sh; the suite runs against a cluster it did not start")
	}
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "tools", "kafka.sh")
	env := append(os.Environ(), "KAFKA_STATE_DIR="+t.TempDir())
	kafkaSh := func(arg string) *exec.Cmd {
		cmd := exec.Command(script, arg)
		cmd.Env, cmd.Stderr = env, os.Stderr
		return cmd
	}
	// Registered before start: a start that fails half-way leaves nothing running either.
	t.Cleanup(func() {
		if err := kafkaSh("stop").Run(); err != nil {
			t.Errorf("tools/kafka.sh stop: %v", err)
		}
	})
	out, err := kafkaSh("start").Output()
	if err != nil {
		t.Fatalf("tools/kafka.sh start: %v", err)
	}
	return strings.TrimSpace(string(out))
}
