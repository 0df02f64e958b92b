package wire_test

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// Each message type of this package against a broker (kfake), in every version.

// The ListGroups types replace kafka-go's: every version must encode and decode against a broker
// (kfake here), the state appearing from v4.
func TestListGroupsEveryVersion(t *testing.T) {
	c := acctest.Fake(t, kfake.SeedTopics(1, "t"))
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
		m, err := protocol.RoundTrip(conn, v, int32(v), "test", &wire.ListGroupsRequest{})
		res, ok := m.(*wire.ListGroupsResponse)
		if err != nil || !ok || len(res.Groups) != 1 || res.Groups[0].GroupID != "g" {
			t.Fatalf("v%d: got %#v, %v; want group g", v, m, err)
		}
		if want := map[bool]string{true: "Empty", false: ""}[v >= 4]; res.Groups[0].GroupState != want {
			t.Errorf("v%d: state %q, want %q", v, res.Groups[0].GroupState, want)
		}
	}
}

// Likewise the ListOffsets types (listoffsets.go), v1 to v7.
func TestListOffsetsEveryVersion(t *testing.T) {
	c := acctest.Fake(t, kfake.SeedTopics(1, "t"))
	for range 4 {
		if err := acctest.FakeClient(t, c).ProduceSync(context.Background(), &kgo.Record{Topic: "t", Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
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
		req := &wire.ListOffsetsRequest{ReplicaID: -1, Topics: []wire.ListOffsetsRequestTopic{{Topic: "t",
			Partitions: []wire.ListOffsetsRequestPartition{{Partition: 0, CurrentLeaderEpoch: -1, Timestamp: wire.TimestampLatest}}}}}
		m, err := protocol.RoundTrip(conn, v, int32(v), "test", req)
		res, ok := m.(*wire.ListOffsetsResponse)
		if err != nil || !ok || len(res.Topics) != 1 || len(res.Topics[0].Partitions) != 1 || res.Topics[0].Partitions[0].Offset != 4 {
			t.Fatalf("v%d: got %#v, %v; want latest offset 4", v, m, err)
		}
	}
}

// The OffsetFetch types replace kafka-go's: every version must encode and decode against a
// broker (kfake here); from v8 one request carries several groups.
func TestOffsetFetchEveryVersion(t *testing.T) {
	c := acctest.Fake(t, kfake.SeedTopics(2, "t"))
	acctest.FakeCommit(t, c, "g1", "t", 1, 5)
	acctest.FakeCommit(t, c, "g2", "t", 0, 3)
	if lo, hi := protocol.OffsetFetch.MinVersion(), protocol.OffsetFetch.MaxVersion(); lo != 2 || hi != 9 {
		t.Fatalf("OffsetFetch registered for v%d-v%d, want v2-v9", lo, hi)
	}
	conn, err := net.Dial("tcp", c.ListenAddrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for v := int16(2); v <= 9; v++ {
		req := &wire.OffsetFetchRequest{GroupID: "g1", Groups: []wire.OffsetFetchRequestGroup{{GroupID: "g1", MemberEpoch: -1}}}
		want := "g1:t/1=5"
		if v >= wire.OffsetFetchBatchVersion {
			req.Groups = append(req.Groups, wire.OffsetFetchRequestGroup{GroupID: "g2", MemberEpoch: -1})
			want = "g1:t/1=5 g2:t/0=3"
		}
		_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
		m, err := protocol.RoundTrip(conn, v, int32(v), "test", req)
		res, ok := m.(*wire.OffsetFetchResponse)
		if err != nil || !ok {
			t.Fatalf("v%d: got %#v, %v", v, m, err)
		}
		groups := res.Groups
		if v < wire.OffsetFetchBatchVersion {
			groups = []wire.OffsetFetchResponseGroup{{GroupID: "g1", Topics: res.Topics, ErrorCode: res.ErrorCode}}
		}
		got := ""
		for _, g := range groups {
			for _, tp := range g.Topics {
				for _, p := range tp.Partitions {
					if p.CommittedOffset >= 0 && p.ErrorCode == 0 && g.ErrorCode == 0 {
						got += fmt.Sprintf(" %s:%s/%d=%d", g.GroupID, tp.Name, p.Partition, p.CommittedOffset)
					}
				}
			}
		}
		if got != " "+want {
			t.Errorf("v%d: got%s, want %s", v, got, want)
		}
	}
}
