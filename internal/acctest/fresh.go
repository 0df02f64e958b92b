package acctest

import (
	"os"
	"testing"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaharness"
)

// FreshBroker starts a single-node broker of the test's own, in this process (the harness, the
// Kafka release of KAFKA_VERSION like the suite's), for a test that needs a cluster no other test
// has touched, and stops it with the test. It returns the PLAINTEXT bootstrap address. It needs
// what `make testacc` needs (java and the cached jars): where the suite runs against a cluster
// tools/kafka.sh did not start (KAFKA_BROKER_LOG unset), the test is skipped.
func FreshBroker(t testing.TB) string {
	t.Helper()
	BootstrapServers(t)
	if os.Getenv("KAFKA_BROKER_LOG") == "" {
		t.Skip("needs a broker of its own from the harness; the suite runs against a cluster tools/kafka.sh did not start")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	pom, err := kafkaharness.FindPom(wd)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kafkaharness.Start(t.Context(), kafkaharness.Options{Version: os.Getenv("KAFKA_VERSION"), Pom: pom})
	if err != nil {
		t.Fatalf("starting a broker of the test's own: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stopping the test's own broker: %v", err)
		}
	})
	return c.Bootstrap()
}
