package kafkaharness

import (
	"context"
	"os"
	"strings"
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

// ZooKeeper mode and tiered storage are refused where they cannot run, before
// anything is downloaded or started.
func TestOptionsRefused(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Version: "4.0.0", ZooKeeper: true}, "KRaft mode only"},
		{Options{Version: "3.9.1", ZooKeeper: true, Brokers: 3}, "single node only"},
		{Options{Version: "3.9.1", ZooKeeper: true, Tiered: true}, "tiered storage runs in KRaft mode"},
		{Options{Version: "3.5.2", Tiered: true}, "tiered storage needs Kafka 3.6 or later"},
	} {
		_, err := Start(t.Context(), tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Start(%+v) = %v, want an error saying %q", tc.o, err, tc.want)
		}
	}
}
