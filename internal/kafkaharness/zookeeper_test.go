package kafkaharness

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// A ZooKeeper-mode single node: ZooKeeper (node 100) and the broker run, the
// broker is its own controller and names the cluster ZooKeeper gave it, the
// SASL listeners log the test user in with every mechanism (the SCRAM users
// added through the broker), the ACL authorizer answers, and Stop ends both.
// Kafka 3.x only: make testharness KAFKA_VERSION=3.9.1 runs it.
func TestStartZooKeeperMode(t *testing.T) {
	t.Parallel()
	o := accOptions(t)
	if o.Version == "" || atLeast(o.Version, 4, 0) {
		t.Skipf("ZooKeeper mode needs Kafka 3.x; this leg runs %q (KAFKA_VERSION=3.9.1 runs it)", o.withDefaults().Version)
	}
	s := startCluster(t, Options{ZooKeeper: true})
	zk := s.Node(ControllerID)
	if zk == nil || zk.Role != RoleZooKeeper || !zk.Running() {
		t.Fatalf("node 100 = %+v, want ZooKeeper running", zk)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	adm := admin(t, s.Bootstrap())
	m, err := adm.BrokerMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Brokers) != 1 || m.Brokers[0].NodeID != 1 || m.Controller != 1 {
		t.Fatalf("brokers %+v, controller %d; want broker 1, its own controller", m.Brokers, m.Controller)
	}
	if m.Cluster == "" || m.Cluster != s.ClusterID {
		t.Errorf("cluster id = %q, want the one recorded, %q", m.Cluster, s.ClusterID)
	}
	described, err := adm.DescribeACLs(ctx, kadm.NewACLs().AnyResource().Operations(kadm.OpAny))
	for _, d := range described {
		err = errors.Join(err, d.Err) // SECURITY_DISABLED without an authorizer
	}
	if err != nil {
		t.Errorf("DescribeACLs: %v, want the authorizer's answer", err)
	}
	assertSASLLogins(t, s)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if zk.Running() || s.Node(1).Running() {
		t.Error("a JVM still runs after Stop")
	}
}
