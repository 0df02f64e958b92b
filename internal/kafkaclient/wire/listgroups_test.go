package wire_test

import (
	"testing"
	"time"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// The ListGroups types replace kafka-go's: every version must encode and decode against a broker
// (kfake here), the state appearing from v4.
func TestListGroupsEveryVersion(t *testing.T) {
	c := acctest.Fake(t, kfake.SeedTopics(1, "t"))
	acctest.FakeCommit(t, c, "g", "t", 0, 0)
	wantRegistered(t, protocol.ListGroups, 0, 5)
	conn := dialFake(t, c)
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
