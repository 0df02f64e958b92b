package kafkaclient

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// What one read of each data source costs on the wire, by API, on a new client. ApiVersions is
// one per connection kafka-go opens; the other counts are exact. Each read below is the request
// its data source sends (internal/provider).

func TestRequestsPerDataSourceRead(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(3), withOffsetsTopic(), kfake.SeedTopics(6, "t"))
	produce(t, c, "t", 0, 3)
	leaders := map[int32]bool{}
	for p := int32(0); p < 6; p++ {
		leaders[c.LeaderFor("t", p)] = true
	}
	acctest.FakeCommit(t, c, "g", "t", 0, 1)

	t.Run("kafka_partition_offsets", func(t *testing.T) {
		counts := acctest.CountRequests(c)
		cl, dials := countingClient(t, c)
		ms := int64(0)
		if _, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t", Partitions: []int{0}, MaxTimestamp: true}); err != nil {
			t.Fatal(err)
		}
		expectRequests(t, counts, dials, map[kmsg.Key]int{kmsg.Metadata: 1, kmsg.ListOffsets: 3})
		counts2 := acctest.CountRequests(c)
		cl2, dials2 := countingClient(t, c)
		if _, err := cl2.Offsets(context.Background(), OffsetsRequest{Topic: "t", Partitions: []int{0}, MaxTimestamp: true, TimestampMs: &ms}); err != nil {
			t.Fatal(err)
		}
		expectRequests(t, counts2, dials2, map[kmsg.Key]int{kmsg.Metadata: 1, kmsg.ListOffsets: 4})
	})
	t.Run("kafka_topic_offsets", func(t *testing.T) {
		counts := acctest.CountRequests(c)
		cl, dials := countingClient(t, c)
		if _, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t"}); err != nil {
			t.Fatal(err)
		}
		expectRequests(t, counts, dials, map[kmsg.Key]int{kmsg.Metadata: 1, kmsg.ListOffsets: 2 * len(leaders)})
	})
	t.Run("kafka_consumer_group_offsets", func(t *testing.T) {
		counts := acctest.CountRequests(c)
		cl, dials := countingClient(t, c)
		res, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Partitions) != 6 || *res.Partitions[0].Committed != 1 || *res.Partitions[0].Lag != 2 {
			t.Fatalf("got %+v", res)
		}
		// Metadata: one for __consumer_offsets (no FindCoordinator on a cluster without it), one
		// for every topic, which also gives the group's topic (coverage.go). FindCoordinator once
		// per read (kafka-go asked before each group request: 2). ListOffsets: earliest and latest
		// per leader (the earliest tells a commit before the log start). DescribeLogDirs to each
		// broker: no topics named, so the read asks which topics the principal may not see.
		expectRequests(t, counts, dials, map[kmsg.Key]int{
			kmsg.Metadata: 2, kmsg.FindCoordinator: 1, kmsg.DescribeGroups: 1, kmsg.OffsetFetch: 1,
			kmsg.ListOffsets: 2 * len(leaders), kmsg.DescribeLogDirs: 3, // every broker
		})
	})
}

// A group on ten topics of a thousand partitions each costs what one topic does: one Metadata
// request for every topic (besides __consumer_offsets'), one DescribeLogDirs per broker (no
// topics named: coverage.go), and earliest and latest per leader, the topics' ListOffsets shared
// (20 ListOffsets and 11 Metadata before).
func TestRequestsOfGroupOnManyTopics(t *testing.T) {
	opts := []kfake.Opt{kfake.NumBrokers(3), withOffsetsTopic()}
	var topics []string
	for i := range 10 {
		topics = append(topics, fmt.Sprintf("t%d", i))
	}
	opts = append(opts, kfake.SeedTopics(1000, topics...))
	c := newCluster(t, opts...)
	for _, topic := range topics {
		acctest.FakeCommit(t, c, "g", topic, 0, 0)
	}
	counts := acctest.CountRequests(c)
	cl, dials := countingClient(t, c)
	res, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Partitions) != 10_000 {
		t.Fatalf("%d partitions, want 10,000", len(res.Partitions))
	}
	expectRequests(t, counts, dials, map[kmsg.Key]int{
		kmsg.Metadata: 2, kmsg.FindCoordinator: 1, kmsg.DescribeGroups: 1, kmsg.OffsetFetch: 1,
		kmsg.ListOffsets: 2 * 3, kmsg.DescribeLogDirs: 3,
	})
}

// 200 kafka_partition_offsets of one topic, 10 at a time, through one Client
// (one provider process) cost one connection per broker (the bootstrap server is a broker here),
// about 60 ListOffsets requests (3 lookups per read, 600 when every read sent its own) and at
// most 25 Metadata requests. With one leader, reads that wait together share every request.
func TestConcurrentReadsShareConnectionsAndRequests(t *testing.T) {
	for _, brokers := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d brokers", brokers), func(t *testing.T) {
			c := newCluster(t, kfake.NumBrokers(brokers), kfake.SeedTopics(200, "t"))
			counts := acctest.CountRequests(c)
			cl, dials := countingClient(t, c)
			readConcurrently(t, cl, "t", 200, 10)
			got := counts()
			t.Logf("%d connections; Metadata %d; ListOffsets %d", dials.Load(), got[int16(kmsg.Metadata)], got[int16(kmsg.ListOffsets)])
			if n := int(dials.Load()); n > brokers+1 {
				t.Errorf("opened %d connections for %d brokers; want at most one per broker plus a bootstrap one", n, brokers)
			}
			if n := got[int16(kmsg.ApiVersions)]; n != int(dials.Load()) {
				t.Errorf("ApiVersions %d, want one per connection (%d)", n, dials.Load())
			}
			if n := got[int16(kmsg.Metadata)]; n > 25 {
				t.Errorf("Metadata: %d requests, want at most 25", n)
			}
			// The 10 waiting reads leave together (one release), each leader's round carrying
			// those it leads: 3 lookups x 20 releases, times the leaders (fewer when a leader has
			// no read in a release): 60 with one, at most 180 with three (one per lookup and read:
			// 600). A read that the scheduler delays past the linger (a loaded 2-core CI runner)
			// costs one more release, 2 allowed.
			if want := map[int]int{1: 66, 3: 198}[brokers]; got[int16(kmsg.ListOffsets)] > want {
				t.Errorf("ListOffsets: %d requests, want at most %d", got[int16(kmsg.ListOffsets)], want)
			}
		})
	}
}
