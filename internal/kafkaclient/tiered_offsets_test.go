package kafkaclient

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// kfake answers the tiered-storage lookups as a broker answers them for a topic without remote
// storage (-4: the log start offset; -5: -1) up to the ListOffsets version it is given; it serves
// v10 at most, so -6 (v11) is never asked of it. The real broker tests are in internal/provider
// (TestAccTiered*).

// Each tiered lookup goes only to a leader that serves its version: none is an error, and a read
// without TieredOffsets sends what it sent before (earliest and latest).
func TestTieredOffsetsAskedWhereServed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     []kfake.Opt
		requests int // per read with TieredOffsets; 2 without
		local    string
	}{
		{name: "Kafka 3.4, ListOffsets v7: none", opts: []kfake.Opt{kfake.MaxVersions(kversion.V3_4_0())}, requests: 2, local: "null"},
		{name: "Kafka 3.5, v8: earliest local", opts: []kfake.Opt{kfake.MaxVersions(kversion.V3_5_0())}, requests: 3, local: "2"},
		{name: "Kafka 3.9, v9: and latest tiered", opts: []kfake.Opt{kfake.MaxVersions(kversion.V3_9_0())}, requests: 4, local: "2"},
		{name: "kfake, v10: the same", requests: 4, local: "2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, append(tc.opts, kfake.SeedTopics(1, "t"))...)
			produce(t, c, "t", 0, 5)
			deleteRecordsBefore(t, c, "t", 2)
			count := acctest.ListOffsetsEntries(c)
			cl := newClient(t, c, 5*time.Second)

			plain, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t"})
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := count(); n != 2 || plain[0].EarliestLocal != nil || plain[0].LatestTiered != nil {
				t.Fatalf("without TieredOffsets: %d requests, %+v; want 2 requests and no tiered offsets", n, plain[0])
			}
			got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t", TieredOffsets: true})
			if err != nil {
				t.Fatal(err)
			}
			p := got[0]
			if n, _ := count(); n-2 != tc.requests {
				t.Errorf("with TieredOffsets: %d requests, want %d", n-2, tc.requests)
			}
			if p.Earliest != 2 || p.Latest != 5 || show(p.EarliestLocal) != tc.local || p.LatestTiered != nil || p.EarliestPendingUpload != nil {
				t.Errorf("got %d/%d, earliest local %s, latest tiered %s, pending upload %s; want 2/5, %s, null, null",
					p.Earliest, p.Latest, show(p.EarliestLocal), show(p.LatestTiered), show(p.EarliestPendingUpload), tc.local)
			}
		})
	}
}

// A broker that negotiates a version but answers UNSUPPORTED_VERSION for a tiered lookup (a
// Kafka-compatible service) leaves it nil: the read goes on.
func TestTieredLookupUnsupportedIsNil(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	acctest.AnswerListOffsets(c, -1, func(rp kmsg.ListOffsetsRequestTopicPartition) (int16, int64) {
		switch rp.Timestamp {
		case wire.TimestampLatestTiered:
			return kerr.UnsupportedVersion.Code, -1
		case wire.TimestampLatest:
			return 0, 3
		}
		return 0, 0 // earliest, earliest local
	})
	cl := newClient(t, c, 5*time.Second)

	got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t", TieredOffsets: true})
	if err != nil {
		t.Fatal(err)
	}
	if show(got[0].EarliestLocal) != "0" || got[0].LatestTiered != nil || got[0].Latest != 3 {
		t.Errorf("got %+v, want earliest local 0, latest tiered null, latest 3", got[0])
	}
}

// Where records lie in remote storage only (earliest local above earliest), the broker's
// max-timestamp answer covers local segments only (KAFKA-17552): it is dropped, and said so.
func TestMaxTimestampDroppedWhereRecordsAreRemoteOnly(t *testing.T) {
	for _, tc := range []struct {
		name         string
		local        int64
		wantDropped  bool
		wantMaxStamp string
	}{
		{name: "all local", local: 0, wantMaxStamp: "1"},
		{name: "offsets 0 and 1 remote only", local: 2, wantDropped: true, wantMaxStamp: "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, kfake.SeedTopics(1, "t"))
			offsets := map[int64]int64{wire.TimestampEarliest: 0, wire.TimestampLatest: 3, wire.TimestampMax: 1,
				wire.TimestampEarliestLocal: tc.local, wire.TimestampLatestTiered: tc.local - 1}
			acctest.AnswerListOffsets(c, -1, func(rp kmsg.ListOffsetsRequestTopicPartition) (int16, int64) {
				return 0, offsets[rp.Timestamp]
			})
			cl := newClient(t, c, 5*time.Second)

			got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t", MaxTimestamp: true, TieredOffsets: true})
			if err != nil {
				t.Fatal(err)
			}
			p := got[0]
			if p.MaxTimestampLocalOnly != tc.wantDropped || show(p.MaxTimestampOffset) != tc.wantMaxStamp {
				t.Errorf("got local only %v, max timestamp offset %s; want %v, %s",
					p.MaxTimestampLocalOnly, show(p.MaxTimestampOffset), tc.wantDropped, tc.wantMaxStamp)
			}
		})
	}
}

// deleteRecordsBefore moves topic's partition 0 log start to offset, through franz-go.
func deleteRecordsBefore(t *testing.T, c *kfake.Cluster, topic string, offset int64) {
	t.Helper()
	req := kmsg.NewPtrDeleteRecordsRequest()
	rt := kmsg.NewDeleteRecordsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewDeleteRecordsRequestTopicPartition()
	rp.Offset = offset
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	req.TimeoutMillis = 5000
	res, err := req.RequestWith(context.Background(), acctest.FakeClient(t, c))
	if err == nil {
		err = kerr.ErrorForCode(res.Topics[0].Partitions[0].ErrorCode)
	}
	if err != nil {
		t.Fatal(fmt.Errorf("DeleteRecords: %w", err))
	}
}
