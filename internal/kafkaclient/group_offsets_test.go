package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// describe prints a group read's partitions with every value the tests check.
func describe(ps []GroupPartitionOffsets) string {
	s := ""
	for _, p := range ps {
		committed, lag := "null", "null"
		if p.Committed != nil {
			committed, lag = fmt.Sprint(*p.Committed), fmt.Sprint(*p.Lag)
		}
		s += fmt.Sprintf("%s/%d committed=%s earliest=%d latest=%d lag=%s outOfRange=%v logEnd=%d; ",
			p.Topic, p.Partition, committed, p.Earliest, p.Latest, lag, p.OutOfRange, p.LogEnd)
	}
	return s
}

// fakeDeleteRecords moves a kfake partition's log start offset to offset, through kadm.
func fakeDeleteRecords(t *testing.T, c *kfake.Cluster, topic string, partition int32, offset int64) {
	t.Helper()
	var o kadm.Offsets
	o.Add(kadm.Offset{Topic: topic, Partition: partition, At: offset, LeaderEpoch: -1})
	res, err := kadm.NewClient(acctest.FakeClient(t, c)).DeleteRecords(context.Background(), o)
	if err == nil {
		err = res.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Case C14: a Kafka-protocol cluster that keeps committed offsets without a __consumer_offsets
// topic in Metadata (kfake, like Azure Event Hubs). ListGroups lists the group, so it is read:
// committed 7, latest 10, lag 3; and no FindCoordinator went out before ListGroups had found it.
func TestGroupReadWithoutOffsetsTopic(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 10)
	acctest.FakeCommit(t, c, "g", "t", 0, 7)
	var (
		mu    sync.Mutex
		order []kmsg.Key
	)
	c.Control(func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		if k := kmsg.Key(r.Key()); k == kmsg.ListGroups || k == kmsg.FindCoordinator {
			order = append(order, k)
		}
		return nil, nil, false
	})

	got, err := newClient(t, c, 5*time.Second).GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	if err != nil {
		t.Fatal(err)
	}
	want := "t/0 committed=7 earliest=0 latest=10 lag=3 outOfRange=false logEnd=10; "
	if got.State != "Empty" || describe(got.Partitions) != want {
		t.Fatalf("got state %q, %s\nwant state Empty, %s", got.State, describe(got.Partitions), want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(order) == 0 || order[0] != kmsg.ListGroups {
		t.Fatalf("requests in order %v; want ListGroups before any FindCoordinator", order)
	}
}

// Case C15: a broker that answers an unknown group with GROUP_ID_NOT_FOUND (69) gets the same
// answer as Apache Kafka's offsets of -1: the group does not exist. kfake answers 69 from
// OffsetFetch; DescribeGroups is made to answer 69 too, with OffsetFetch answering as Apache
// Kafka does (no offsets).
func TestGroupIDNotFound(t *testing.T) {
	for _, tc := range []struct {
		name    string
		arrange func(c *kfake.Cluster)
		want    string
	}{
		{"OffsetFetch answers 69", func(*kfake.Cluster) {},
			`consumer group "nobody" does not exist: OffsetFetch answered GROUP_ID_NOT_FOUND (error code 69)`},
		{"DescribeGroups answers 69", func(c *kfake.Cluster) {
			c.ControlKey(int16(kmsg.DescribeGroups), func(r kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				req, _ := r.(*kmsg.DescribeGroupsRequest)
				resp := kmsg.NewPtrDescribeGroupsResponse()
				resp.Version = req.Version
				g := kmsg.NewDescribeGroupsResponseGroup()
				g.Group, g.ErrorCode = req.Groups[0], 69
				resp.Groups = append(resp.Groups, g)
				return resp, nil, true
			})
			c.ControlKey(int16(kmsg.OffsetFetch), func(r kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				resp := kmsg.NewPtrOffsetFetchResponse() // no error, no offsets
				resp.Version = r.GetVersion()
				return resp, nil, true
			})
		}, `consumer group "nobody" has no members and no committed offsets (broker reports state "Dead")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// __consumer_offsets seeded: the read goes on to DescribeGroups and OffsetFetch.
			c := newCluster(t, withOffsetsTopic(), kfake.SeedTopics(1, "t"))
			acctest.FakeCommit(t, c, "other", "t", 0, 0) // a group exists, not this one
			tc.arrange(c)
			_, err := newClient(t, c, 3*time.Second).GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "nobody"})
			var gnf *GroupNotFoundError
			if !errors.As(err, &gnf) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("got %T %v\nwant GroupNotFoundError %q", err, err, tc.want)
			}
		})
	}
}

// Case C16: lag is latest - committed, as kafka-consumer-groups.sh shows it. A commit of 15 on a
// 10-record partition is lag -5; a commit of 2 on a log spanning 4..10 is lag 8; both are out of
// range. Commits at the log start and at the log end are in range. total_lag sums only the
// positive lags: 8 + 6 + 0, the -5 cancelling nothing.
func TestGroupLagOutsideTheLog(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(4, "t"))
	for p := int32(0); p < 4; p++ {
		produce(t, c, "t", p, 10)
	}
	fakeDeleteRecords(t, c, "t", 1, 4)
	fakeDeleteRecords(t, c, "t", 2, 4)
	acctest.FakeCommit(t, c, "g", "t", 0, 15)
	acctest.FakeCommit(t, c, "g", "t", 1, 2)
	acctest.FakeCommit(t, c, "g", "t", 2, 4)
	acctest.FakeCommit(t, c, "g", "t", 3, 10)

	got, err := newClient(t, c, 5*time.Second).GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	if err != nil {
		t.Fatal(err)
	}
	want := "t/0 committed=15 earliest=0 latest=10 lag=-5 outOfRange=true logEnd=10; " +
		"t/1 committed=2 earliest=4 latest=10 lag=8 outOfRange=true logEnd=10; " +
		"t/2 committed=4 earliest=4 latest=10 lag=6 outOfRange=false logEnd=10; " +
		"t/3 committed=10 earliest=0 latest=10 lag=0 outOfRange=false logEnd=10; "
	if describe(got.Partitions) != want {
		t.Fatalf("got  %s\nwant %s", describe(got.Partitions), want)
	}
	if total, ok := TotalLag(got.Partitions); total != 14 || !ok {
		t.Fatalf("total lag %d (ok %v), want 14", total, ok)
	}
}

// Under read_committed, latest is the last stable offset: a commit between it and the high
// watermark (a read_uncommitted consumer's, here 3 in an open transaction's span 2..5) is in the
// log. Its lag is negative against the last stable offset, and it is not out of range; a commit
// past the high watermark still is.
func TestGroupLagReadCommitted(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(2, "t"))
	produce(t, c, "t", 0, 2)
	produce(t, c, "t", 1, 2)
	openTransaction(t, c, "t", 0, 3) // offsets 2, 3, 4: last stable offset 2, high watermark 5
	acctest.FakeCommit(t, c, "g", "t", 0, 3)
	acctest.FakeCommit(t, c, "g", "t", 1, 9)

	got, err := newClient(t, c, 5*time.Second).GroupOffsets(context.Background(),
		GroupOffsetsRequest{GroupID: "g", Isolation: ReadCommitted})
	if err != nil {
		t.Fatal(err)
	}
	want := "t/0 committed=3 earliest=0 latest=2 lag=-1 outOfRange=false logEnd=5; " +
		"t/1 committed=9 earliest=0 latest=2 lag=-7 outOfRange=true logEnd=2; "
	if describe(got.Partitions) != want {
		t.Fatalf("got  %s\nwant %s", describe(got.Partitions), want)
	}
}

// The lag rule itself, at its edges.
func TestGroupPartitionLagRule(t *testing.T) {
	p := PartitionOffsets{Partition: 0, Earliest: 4, Latest: 10}
	for _, tc := range []struct {
		committed int64
		want      string
	}{
		{3, "lag=7 outOfRange=true"},
		{4, "lag=6 outOfRange=false"},
		{10, "lag=0 outOfRange=false"},
		{11, "lag=-1 outOfRange=true"},
		{math.MaxInt64, fmt.Sprintf("lag=%d outOfRange=true", 10-math.MaxInt64)},
	} {
		gp := groupPartition("t", p, 10, map[int]int64{0: tc.committed})
		if got := fmt.Sprintf("lag=%d outOfRange=%v", *gp.Lag, gp.OutOfRange); got != tc.want {
			t.Errorf("commit %d: got %s, want %s", tc.committed, got, tc.want)
		}
	}
	if gp := groupPartition("t", p, 10, nil); gp.Committed != nil || gp.Lag != nil || gp.OutOfRange {
		t.Errorf("no commit: got %+v, want null commit and lag, in range", gp)
	}
	lags := func(vs ...int64) []GroupPartitionOffsets {
		out := make([]GroupPartitionOffsets, len(vs))
		for i := range vs {
			out[i].Lag = &vs[i]
		}
		return out
	}
	if total, ok := TotalLag(lags(3, -5, 0)); total != 3 || !ok {
		t.Errorf("TotalLag(3, -5, 0) = %d, %v; want 3", total, ok)
	}
	if _, ok := TotalLag(lags(math.MaxInt64, 1)); ok {
		t.Errorf("TotalLag past 2^63 - 1 must say it does not fit")
	}
}

// openTransaction produces n records to one partition in a transaction it leaves open (franz-go),
// so that the partition's last stable offset stays below its high watermark.
func openTransaction(t *testing.T, c *kfake.Cluster, topic string, partition int32, n int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.TransactionalID("open-"+topic), kgo.TransactionTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		r := &kgo.Record{Topic: topic, Partition: partition, Value: []byte("txn")}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}
