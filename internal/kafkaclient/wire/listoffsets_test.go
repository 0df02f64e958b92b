package wire_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire/wiretest"
)

// kfake, which the package's tests use as a broker, answers each special ListOffsets timestamp
// from the version wire names for it, as a broker without tiered storage does, and
// UNSUPPORTED_VERSION below it; every version from wire.MinListOffsetsVersion to v10 (kfake serves
// no more) asks through kmsg.
func TestListOffsetsSpecialTimestampsEveryVersion(t *testing.T) {
	c := acctest.Fake(t, kfake.SeedTopics(1, "t"))
	// One batch per record; the largest timestamp is at offset 1, neither the first nor the last.
	for _, ms := range []int64{0, 3000, 1000, 2000} {
		rec := &kgo.Record{Topic: "t", Timestamp: time.UnixMilli(t0 + ms), Value: []byte("v")}
		if err := acctest.FakeClient(t, c).ProduceSync(context.Background(), rec).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	type answer struct {
		ErrorCode         int16
		Offset, Timestamp int64
	}
	unsupported := answer{ErrorCode: kerr.UnsupportedVersion.Code, Offset: -1, Timestamp: -1}
	for _, tc := range []struct {
		timestamp int64
		from      int16 // the first version that answers it
		want      answer
	}{
		{timestamp: wire.TimestampLatest, from: wire.MinListOffsetsVersion, want: answer{Offset: 4, Timestamp: -1}},
		{timestamp: wire.TimestampEarliest, from: wire.MinListOffsetsVersion, want: answer{Offset: 0, Timestamp: -1}},
		{timestamp: wire.TimestampMax, from: wire.MaxTimestampVersion, want: answer{Offset: 1, Timestamp: t0 + 3000}},
		{timestamp: wire.TimestampEarliestLocal, from: wire.EarliestLocalVersion, want: answer{Offset: 0, Timestamp: -1}},
		{timestamp: wire.TimestampLatestTiered, from: wire.LatestTieredVersion, want: answer{Offset: -1, Timestamp: -1}},
		{timestamp: wire.TimestampEarliestPendingUpload, from: wire.EarliestPendingUploadVersion, want: answer{Offset: -1, Timestamp: -1}},
	} {
		conn := dialFake(t, c)
		for v := int16(wire.MinListOffsetsVersion); v <= 10; v++ {
			t.Run(fmt.Sprintf("%d/v%d", tc.timestamp, v), func(t *testing.T) {
				req := kmsg.NewPtrListOffsetsRequest()
				req.Version, req.ReplicaID, req.TimeoutMillis = v, -1, 1000
				rt := kmsg.NewListOffsetsRequestTopic()
				rt.Topic = "t"
				rp := kmsg.NewListOffsetsRequestTopicPartition()
				rp.Partition, rp.CurrentLeaderEpoch, rp.Timestamp = 0, -1, tc.timestamp
				rt.Partitions = []kmsg.ListOffsetsRequestTopicPartition{rp}
				req.Topics = []kmsg.ListOffsetsRequestTopic{rt}
				_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
				m, err := wiretest.RoundTrip(conn, req)
				res, ok := m.(*kmsg.ListOffsetsResponse)
				if err != nil || !ok || len(res.Topics) != 1 || res.Topics[0].Topic != "t" ||
					len(res.Topics[0].Partitions) != 1 || res.Topics[0].Partitions[0].Partition != 0 {
					t.Fatalf("got %#v, %v", m, err)
				}
				p := res.Topics[0].Partitions[0]
				want := tc.want
				if v < tc.from {
					want = unsupported
				}
				if got := (answer{p.ErrorCode, p.Offset, p.Timestamp}); got != want {
					t.Fatalf("got %+v, want %+v", got, want)
				}
			})
		}
	}
}
