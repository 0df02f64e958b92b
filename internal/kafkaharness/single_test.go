package kafkaharness

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// startSingle starts a node for the test (KAFKA_VERSION picks the release, as
// for kafka.sh) and stops it when the test ends. It needs java and the jars
// (or mvn), so it runs only with TF_ACC set, like the acceptance tests.
func startSingle(t *testing.T) *Single {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("starts a real Kafka JVM; set TF_ACC=1")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	pom, err := FindPom(wd)
	if err != nil {
		t.Fatal(err)
	}
	s, err := StartSingle(t.Context(), Options{Version: os.Getenv("KAFKA_VERSION"), Pom: pom})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stopping the node: %v", err)
		}
	})
	return s
}

func admin(t *testing.T, bootstrap string) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// A started single node is one registered broker that serves admin requests:
// a topic created through it is listed back with its partitions.
func TestStartSingleServesOneBroker(t *testing.T) {
	s := startSingle(t)
	adm := admin(t, s.Bootstrap())
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	m, err := adm.BrokerMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Brokers) != 1 || m.Brokers[0].NodeID != 1 || m.Brokers[0].Port != int32(s.Ports.Plaintext) {
		t.Fatalf("brokers = %+v, want node 1 on port %d", m.Brokers, s.Ports.Plaintext)
	}
	if m.Cluster != s.ClusterID {
		t.Errorf("cluster id = %q, want the formatted %q", m.Cluster, s.ClusterID)
	}

	if _, err := adm.CreateTopic(ctx, 3, 1, nil, "harness-topic"); err != nil {
		t.Fatal(err)
	}
	td, err := adm.ListTopics(ctx, "harness-topic")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(td["harness-topic"].Partitions); got != 3 {
		t.Errorf("harness-topic has %d partitions, want 3", got)
	}
}

// Stop ends the JVM (controlled shutdown) and deletes the work dir.
func TestStopEndsNodeAndDeletesDir(t *testing.T) {
	s := startSingle(t)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if s.Node.Running() {
		t.Error("node still running after Stop")
	}
	if _, err := os.Stat(s.Node.Dir); !os.IsNotExist(err) {
		t.Errorf("work dir %s: %v, want it deleted", s.Node.Dir, err)
	}
}
