package kafkaclient

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

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
			fakeDeleteRecords(t, c, "t", 0, 2)
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
