package kafkaclient

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// What one read of each data source costs on the wire, by API, on a new client. ApiVersions is
// one per connection kafka-go opens; the other counts are exact. Each read below is the request
// its data source sends (internal/provider).

func countingClient(t *testing.T, c *kfake.Cluster) (*Client, *atomic.Int32) {
	t.Helper()
	var dials atomic.Int32
	cl, err := New(Config{
		BootstrapServers: c.ListenAddrs(), Timeout: 5 * time.Second,
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			dials.Add(1)
			return (&net.Dialer{}).DialContext(ctx, network, address)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl, &dials
}

func expectRequests(t *testing.T, counts func() map[int16]int, dials *atomic.Int32, want map[kmsg.Key]int) {
	t.Helper()
	got := counts()
	n := int(dials.Load())
	if got[int16(kmsg.ApiVersions)] != n {
		t.Errorf("ApiVersions: got %d, want one per connection (%d)", got[int16(kmsg.ApiVersions)], n)
	}
	delete(got, int16(kmsg.ApiVersions))
	wantRaw := map[int16]int{}
	for k, v := range want {
		wantRaw[int16(k)] = v
	}
	if !equalCounts(got, wantRaw) {
		t.Errorf("requests by API key (ApiVersions aside): got %v, want %v", got, wantRaw)
	}
	t.Logf("%d connections (ApiVersions each); %s", n, describeCounts(wantRaw))
}

func describeCounts(c map[int16]int) string {
	s := ""
	for _, k := range []kmsg.Key{kmsg.Metadata, kmsg.ListOffsets, kmsg.FindCoordinator, kmsg.DescribeGroups, kmsg.ListGroups, kmsg.OffsetFetch} {
		if n := c[int16(k)]; n > 0 {
			s += fmt.Sprintf("%s %d; ", k.Name(), n)
		}
	}
	return s
}

func TestRequestsPerDataSourceRead(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(3), withOffsetsTopic(), kfake.SeedTopics(6, "t"))
	produce(t, c, "t", 0, 3)
	leaders := map[int32]bool{}
	for p := int32(0); p < 6; p++ {
		leaders[c.LeaderFor("t", p)] = true
	}
	acctest.FakeCommit(t, c, "g", "t", 0, 1)

	t.Run("kafka_partition_offsets", func(t *testing.T) {
		counts := countRequests(c)
		cl, dials := countingClient(t, c)
		ms := int64(0)
		if _, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t", Partitions: []int{0}, MaxTimestamp: true}); err != nil {
			t.Fatal(err)
		}
		expectRequests(t, counts, dials, map[kmsg.Key]int{kmsg.Metadata: 1, kmsg.ListOffsets: 3})
		counts2 := countRequests(c)
		cl2, dials2 := countingClient(t, c)
		if _, err := cl2.Offsets(context.Background(), OffsetsRequest{Topic: "t", Partitions: []int{0}, MaxTimestamp: true, TimestampMs: &ms}); err != nil {
			t.Fatal(err)
		}
		expectRequests(t, counts2, dials2, map[kmsg.Key]int{kmsg.Metadata: 1, kmsg.ListOffsets: 4})
	})
	t.Run("kafka_topic_offsets", func(t *testing.T) {
		counts := countRequests(c)
		cl, dials := countingClient(t, c)
		if _, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t"}); err != nil {
			t.Fatal(err)
		}
		expectRequests(t, counts, dials, map[kmsg.Key]int{kmsg.Metadata: 1, kmsg.ListOffsets: 2 * len(leaders)})
	})
	t.Run("kafka_consumer_group_offsets", func(t *testing.T) {
		counts := countRequests(c)
		cl, dials := countingClient(t, c)
		res, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Partitions) != 6 || *res.Partitions[0].Committed != 1 || *res.Partitions[0].Lag != 2 {
			t.Fatalf("got %+v", res)
		}
		// Metadata: one for the brokers-only transport, one for the topic's. FindCoordinator:
		// kafka-go asks before each group request. ListOffsets: earliest and latest per leader (the
		// earliest tells a commit before the log start).
		expectRequests(t, counts, dials, map[kmsg.Key]int{
			kmsg.Metadata: 2, kmsg.FindCoordinator: 2, kmsg.DescribeGroups: 1, kmsg.OffsetFetch: 1,
			kmsg.ListOffsets: 2 * len(leaders),
		})
	})
}
