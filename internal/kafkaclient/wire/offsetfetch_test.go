package wire_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// The OffsetFetch types replace kafka-go's: every version must encode and decode against a
// broker (kfake here); from v8 one request carries several groups.
func TestOffsetFetchEveryVersion(t *testing.T) {
	c := acctest.Fake(t, kfake.SeedTopics(2, "t"))
	acctest.FakeCommit(t, c, "g1", "t", 1, 5)
	acctest.FakeCommit(t, c, "g2", "t", 0, 3)
	wantRegistered(t, protocol.OffsetFetch, 2, 9)
	conn := dialFake(t, c)
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
