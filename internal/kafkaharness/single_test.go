package kafkaharness

import (
	"context"
	"os"
	"testing"
	"time"
)

// A started single node is one registered broker that serves admin requests:
// a topic created through it is listed back with its partitions.
func TestStartSingleServesOneBroker(t *testing.T) {
	t.Parallel()
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
	if got := partitionCount(ctx, t, adm, "harness-topic"); got != 3 {
		t.Errorf("harness-topic has %d partitions, want 3", got)
	}
}

// Stop ends the JVM (controlled shutdown) and deletes the work dir.
func TestStopEndsNodeAndDeletesDir(t *testing.T) {
	t.Parallel()
	s := startSingle(t)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if s.Node(1).Running() {
		t.Error("node still running after Stop")
	}
	if _, err := os.Stat(s.Node(1).Dir); !os.IsNotExist(err) {
		t.Errorf("work dir %s: %v, want it deleted", s.Node(1).Dir, err)
	}
}
