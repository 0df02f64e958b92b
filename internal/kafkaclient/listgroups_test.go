package kafkaclient

import (
	"net"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// Our ListGroups types replace kafka-go's: every version must encode and decode against a broker
// (kfake here), the state appearing from v4.
func TestListGroupsEveryVersion(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	acctest.FakeCommit(t, c, "g", "t", 0, 0)
	if lo, hi := protocol.ListGroups.MinVersion(), protocol.ListGroups.MaxVersion(); lo != 0 || hi != 5 {
		t.Fatalf("ListGroups registered for v%d-v%d, want v0-v5", lo, hi)
	}
	conn, err := net.Dial("tcp", c.ListenAddrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for v := int16(0); v <= 5; v++ {
		_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
		m, err := protocol.RoundTrip(conn, v, int32(v), "test", &listGroupsRequest{})
		res, ok := m.(*listGroupsResponse)
		if err != nil || !ok || len(res.Groups) != 1 || res.Groups[0].GroupID != "g" {
			t.Fatalf("v%d: got %#v, %v; want group g", v, m, err)
		}
		if want := map[bool]string{true: "Empty", false: ""}[v >= 4]; res.Groups[0].GroupState != want {
			t.Errorf("v%d: state %q, want %q", v, res.Groups[0].GroupState, want)
		}
	}
}

// Likewise our ListOffsets types (listoffsets.go), v1 to v7.
func TestListOffsetsEveryVersion(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 4)
	if lo, hi := protocol.ListOffsets.MinVersion(), protocol.ListOffsets.MaxVersion(); lo != 1 || hi != 7 {
		t.Fatalf("ListOffsets registered for v%d-v%d, want v1-v7", lo, hi)
	}
	conn, err := net.Dial("tcp", c.ListenAddrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for v := int16(1); v <= 7; v++ {
		_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
		req := &listOffsetsRequest{ReplicaID: -1, Topics: []listOffsetsRequestTopic{{Topic: "t",
			Partitions: []listOffsetsRequestPartition{{Partition: 0, CurrentLeaderEpoch: -1, Timestamp: timestampLatest}}}}}
		m, err := protocol.RoundTrip(conn, v, int32(v), "test", req)
		res, ok := m.(*listOffsetsResponse)
		if err != nil || !ok || len(res.Topics) != 1 || len(res.Topics[0].Partitions) != 1 || res.Topics[0].Partitions[0].Offset != 4 {
			t.Fatalf("v%d: got %#v, %v; want latest offset 4", v, m, err)
		}
	}
}
