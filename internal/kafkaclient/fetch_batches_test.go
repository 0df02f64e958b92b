package kafkaclient

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// stampedCluster is a one-broker kfake cluster, behind a simulated round trip, whose topic "t"
// has partitions partitions of 10 records each, record i stamped t0 + i seconds.
func stampedCluster(t *testing.T, rtt time.Duration, partitions int32, t0 time.Time) (*kfake.Cluster, func() map[int16]int) {
	t.Helper()
	dl := &acctest.DelayedListener{Delay: rtt}
	c := newCluster(t, kfake.NumBrokers(1), kfake.SeedTopics(partitions, "t"), kfake.ListenFn(dl.Listen))
	for p := range partitions {
		ts := make([]time.Time, 10)
		for i := range ts {
			ts[i] = t0.Add(time.Duration(i) * time.Second)
		}
		produceAt(t, c, "t", p, ts...)
	}
	return c, acctest.CountRequests(c)
}

// Concurrent group reads share Fetch requests: 20 groups read at once, behind a 20 ms round trip,
// need far fewer than 20 Fetch requests, and each gets the record at its own commit. Groups that
// ask for one partition at different offsets are answered each at its own offset.
func TestFetchBatchesShareRequests(t *testing.T) {
	t0 := time.UnixMilli(1_700_000_000_000)
	c, counts := stampedCluster(t, 20*time.Millisecond, 2, t0)
	const groups = 20
	for g := range groups {
		at := int64(g % 5) // five distinct offsets over the groups
		acctest.FakeCommit(t, c, fmt.Sprintf("g%d", g), "t", 0, at)
		acctest.FakeCommit(t, c, fmt.Sprintf("g%d", g), "t", 1, 3)
	}
	cl := newClient(t, c, 20*time.Second)
	before := counts()[int16(kmsg.Fetch)]

	var wg sync.WaitGroup
	errs := make(chan error, groups)
	for g := range groups {
		wg.Go(func() {
			res, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: fmt.Sprintf("g%d", g), Topics: []string{"t"}, FetchTimestamps: true})
			if err != nil {
				errs <- err
				return
			}
			for _, p := range res.Partitions {
				want := *p.Committed // record i is at offset i
				if p.Next == nil || p.Next.Offset != want || p.Next.TimestampMs != t0.Add(time.Duration(want)*time.Second).UnixMilli() {
					errs <- fmt.Errorf("group g%d partition %d: next record %+v, want offset %d stamped t0+%ds", g, p.Partition, p.Next, want, want)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d Fetch requests for %d concurrent group reads", counts()[int16(kmsg.Fetch)]-before, groups)
	// Partition 0 is wanted at 5 offsets, so at least 5 requests; unshared, 20.
	if fetches := counts()[int16(kmsg.Fetch)] - before; fetches < 5 || fetches > 15 {
		t.Errorf("%d Fetch requests for %d concurrent group reads; want 5 to 15 (shared; 20 unshared)", fetches, groups)
	}
}

// kafka_consumer_groups reads every group's time lag; groups at different offsets of a partition
// are searched each at its own offset.
func TestConsumerGroupsTimeLag(t *testing.T) {
	t0 := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	c, _ := stampedCluster(t, 0, 1, t0)
	acctest.FakeCommit(t, c, "behind", "t", 0, 2)
	acctest.FakeCommit(t, c, "further", "t", 0, 1)
	acctest.FakeCommit(t, c, "done", "t", 0, 10)
	cl := newClient(t, c, 10*time.Second)
	before := time.Now()
	res, err := cl.ConsumerGroups(context.Background(), ConsumerGroupsRequest{FetchTimestamps: true})
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("got %d groups, want 3: %+v", len(res), res)
	}
	for _, g := range res { // sorted: behind, done, further
		var at int64
		switch g.GroupID {
		case "behind":
			at = 2
		case "further":
			at = 1
		case "done":
			if g.MaxTimeLagMs == nil || *g.MaxTimeLagMs != 0 {
				t.Errorf("group done: max time lag %s, want 0", show(g.MaxTimeLagMs))
			}
			continue
		}
		stamp := t0.Add(time.Duration(at) * time.Second)
		lo, hi := before.Sub(stamp).Milliseconds(), after.Sub(stamp).Milliseconds()
		if g.MaxTimeLagMs == nil || *g.MaxTimeLagMs < lo || *g.MaxTimeLagMs > hi {
			t.Errorf("group %s: max time lag %s ms, want %d to %d (record %d)", g.GroupID, show(g.MaxTimeLagMs), lo, hi, at)
		}
	}
}

// Without FetchTimestamps no Fetch goes out, and the time lags stay unset.
func TestNoFetchWithoutTimestamps(t *testing.T) {
	c, counts := stampedCluster(t, 0, 2, time.UnixMilli(1_700_000_000_000))
	acctest.FakeCommit(t, c, "g", "t", 0, 4)
	cl := newClient(t, c, 10*time.Second)
	res, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g", Topics: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	groups, err := cl.ConsumerGroups(context.Background(), ConsumerGroupsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if n := counts()[int16(kmsg.Fetch)]; n != 0 {
		t.Errorf("%d Fetch requests without FetchTimestamps, want 0", n)
	}
	for _, p := range res.Partitions {
		if p.TimeLag != (TimeLag{}) {
			t.Errorf("partition %d: time lag %+v without FetchTimestamps", p.Partition, p.TimeLag)
		}
	}
	if groups[0].MaxTimeLagMs != nil {
		t.Errorf("group max time lag %d without FetchTimestamps", *groups[0].MaxTimeLagMs)
	}
}

// A group on 10,000 partitions: every partition's next record exact, in one Fetch request (each
// answer is bounded by fetchResponseBytes, 8 MiB, whatever the number of partitions; these
// partitions' batches take about 1 MiB).
func TestGroupTimeLagTenThousandPartitions(t *testing.T) {
	const n = 10_000
	c := newCluster(t, kfake.NumBrokers(1), kfake.SeedTopics(n, "wide"))
	counts := acctest.CountRequests(c)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	t0 := time.UnixMilli(1_700_000_000_000)
	stamp := func(p int32, i int) time.Time { return t0.Add(time.Duration(int(p)*2+i) * time.Millisecond) }
	var commits kadm.Offsets
	for p := range int32(n) {
		for i := range 2 {
			cl.Produce(context.Background(), &kgo.Record{Topic: "wide", Partition: p, Value: []byte("v"), Timestamp: stamp(p, i)}, nil)
		}
		commits.Add(kadm.Offset{Topic: "wide", Partition: p, At: 1, LeaderEpoch: -1})
	}
	if err := cl.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := kadm.NewClient(cl).CommitAllOffsets(context.Background(), "g", commits); err != nil {
		t.Fatal(err)
	}
	before := counts()[int16(kmsg.Fetch)]
	res, err := newClient(t, c, time.Minute).GroupOffsets(context.Background(),
		GroupOffsetsRequest{GroupID: "g", Topics: []string{"wide"}, FetchTimestamps: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Partitions) != n {
		t.Fatalf("%d partitions, want %d", len(res.Partitions), n)
	}
	for _, p := range res.Partitions {
		if want := stamp(int32(p.Partition), 1).UnixMilli(); p.Next == nil || p.Next.Offset != 1 || p.Next.TimestampMs != want {
			t.Fatalf("partition %d: next record %+v, want offset 1 stamped %d", p.Partition, p.Next, want)
		}
	}
	if fetches := counts()[int16(kmsg.Fetch)] - before; fetches != 1 {
		t.Errorf("%d Fetch requests for 10,000 partitions of one leader, want 1", fetches)
	}
}
