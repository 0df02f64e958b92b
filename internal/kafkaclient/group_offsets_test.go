package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// A Kafka-protocol cluster that keeps committed offsets without a __consumer_offsets
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

// A broker that answers an unknown group with GROUP_ID_NOT_FOUND (69) gets the same
// answer as Apache Kafka's offsets of -1: the group does not exist. kfake answers 69 from
// OffsetFetch; DescribeGroups is made to answer 69 too, with OffsetFetch answering as Apache
// Kafka does (no offsets).
func TestGroupIDNotFound(t *testing.T) {
	for _, tc := range []struct {
		name    string
		arrange func(c *kfake.Cluster)
		want    string
	}{
		{name: "OffsetFetch answers 69", arrange: func(*kfake.Cluster) {},
			want: `consumer group "nobody" does not exist: OffsetFetch answered GROUP_ID_NOT_FOUND (error code 69)`},
		{name: "DescribeGroups answers 69", arrange: func(c *kfake.Cluster) {
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
		}, want: `consumer group "nobody" does not exist: its coordinator neither describes nor lists it (state "Dead") and OffsetFetch answers no committed offset for it`},
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

// fetchNothing makes OffsetFetch answer every group without an error and without offsets, as
// Apache Kafka answers for a group whose commits all lie on topics the principal may not DESCRIBE
// (and for a group that does not exist).
func fetchNothing(c *kfake.Cluster) {
	c.ControlKey(int16(kmsg.OffsetFetch), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := kmsg.NewPtrOffsetFetchResponse()
		resp.Version = r.GetVersion()
		return resp, nil, true
	})
}

// A group is "not found" only where the cluster says so with nothing hidden from the principal:
// OffsetFetch leaves out the topics it may not DESCRIBE, so "no commit" alone proves nothing. A
// group the coordinator lists (Empty: commits kept, here all on a hidden topic) exists; one it
// neither describes nor lists is believed missing only where no topic the read covers is hidden.
// Either way the verdict is false, saying which topics were not seen first, and total_lag is
// unknown.
func TestHiddenCommitsAreNotAMissingGroup(t *testing.T) {
	noPartition := "no partition: the group has no commit and no member on the selected topics, so the " +
		"cluster cannot vouch that it has read anything"
	unseenTB := regexp.MustCompile(`^topics not seen: the provider's principal may not DESCRIBE 1 topic of the cluster \(tb\)`)
	for _, tc := range []struct {
		name, group, state string
		arrange            func(c *kfake.Cluster)
	}{
		{name: "listed (Empty), its commits on a hidden topic", group: "g", state: "Empty", arrange: func(c *kfake.Cluster) {
			acctest.FakeCommit(t, c, "g", "ta", 0, 5) // the group exists; OffsetFetch shows none of its commits
		}},
		{name: "neither described nor listed, a topic hidden", group: "nobody", state: "Dead", arrange: func(c *kfake.Cluster) {
			acctest.FakeCommit(t, c, "other", "ta", 0, 0) // some group exists, not this one
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, withOffsetsTopic(), kfake.SeedTopics(1, "ta"))
			produce(t, c, "ta", 0, 5)
			tc.arrange(c)
			fetchNothing(c)
			holdTopics(c, []string{"ta", "tb"}, "tb")
			cl := newClient(t, c, 5*time.Second)
			got, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: tc.group})
			if err != nil {
				t.Fatalf("got %v; want the group read, not caught up", err)
			}
			if got.State != tc.state || len(got.Partitions) != 0 || got.CaughtUp || got.TotalLag != nil ||
				len(got.NotCaughtUp) != 2 || !unseenTB.MatchString(got.NotCaughtUp[0]) || got.NotCaughtUp[1] != noPartition {
				t.Fatalf("got state %q, %d partitions, %+v; want state %s, no partition, not caught up for the hidden "+
					"topic tb and no partition, total lag unknown", got.State, len(got.Partitions), got.Verdict, tc.state)
			}
			// Named topics, all visible: a listed group shows them without a commit; one the
			// coordinator does not know, with no commit on any of them, is missing.
			got, err = cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: tc.group, Topics: []string{"ta"}})
			var gnf *GroupNotFoundError
			switch {
			case tc.state == "Dead" && !errors.As(err, &gnf):
				t.Fatalf("topics = [ta]: got %v, want GroupNotFoundError", err)
			case tc.state != "Dead" && (err != nil || got.CaughtUp || describe(got.Partitions) !=
				"ta/0 committed=null earliest=0 latest=5 lag=null outOfRange=false logEnd=5; "):
				t.Fatalf("topics = [ta]: got %s, %+v, %v; want ta/0 without a commit, not caught up", describe(got.Partitions), got.Verdict, err)
			}
		})
	}
}

// Lag is latest - committed, as kafka-consumer-groups.sh shows it. A commit of 15 on a
// 10-record partition is lag -5; a commit of 2 on a log spanning 4..10 is lag 8; both are out of
// range. Commits at the log start and at the log end are in range. total_lag is null: a commit
// outside the log is not a position any lag measures, and 8 + 6 + 0 would hide that.
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
	if got.TotalLag != nil || got.CaughtUp {
		t.Fatalf("total lag %v, caught up %v; want null, false", show(got.TotalLag), got.CaughtUp)
	}
}

// Under read_committed, latest is the last stable offset: a commit between it and the high
// watermark (a read_uncommitted consumer's, here 3 in an open transaction's span 2..5) is in the
// log. Its lag is negative against the last stable offset, and it is not out of range; a commit
// past the high watermark still is. Both reads ask the high watermark whatever the commits.
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
	groups, err := newClient(t, c, 5*time.Second).ConsumerGroups(context.Background(),
		ConsumerGroupsRequest{Topics: []string{"t"}, Isolation: ReadCommitted})
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 || !slices.Equal(groups[0].NotCaughtUp, got.NotCaughtUp) {
		t.Fatalf("kafka_consumer_groups' verdict %+v, want the same reasons as GroupOffsets': %q", groups, got.NotCaughtUp)
	}
	if describe(got.Partitions) != want {
		t.Fatalf("got  %s\nwant %s", describe(got.Partitions), want)
	}
}

// The lag rule itself, at its edges.
func TestGroupPartitionLagRule(t *testing.T) {
	p := PartitionOffsets{Partition: 0, Earliest: 4, Latest: 10, HighWatermark: 10}
	for _, tc := range []struct {
		committed int64
		want      string
	}{
		{committed: 3, want: "lag=7 outOfRange=true"},
		{committed: 4, want: "lag=6 outOfRange=false"},
		{committed: 10, want: "lag=0 outOfRange=false"},
		{committed: 11, want: "lag=-1 outOfRange=true"},
		{committed: math.MaxInt64, want: fmt.Sprintf("lag=%d outOfRange=true", 10-math.MaxInt64)},
	} {
		t.Run(fmt.Sprintf("commit %d", tc.committed), func(t *testing.T) {
			gp := groupPartition("t", p, position{committed: &tc.committed})
			if got := fmt.Sprintf("lag=%d outOfRange=%v", *gp.Lag, gp.OutOfRange); got != tc.want {
				t.Errorf("commit %d: got %s, want %s", tc.committed, got, tc.want)
			}
		})
	}
	if gp := groupPartition("t", p, position{}); gp.Committed != nil || gp.Lag != nil || gp.OutOfRange {
		t.Errorf("no commit: got %+v, want null commit and lag, in range", gp)
	}
	lags := func(vs ...int64) []GroupPartitionOffsets {
		out := make([]GroupPartitionOffsets, len(vs))
		for i := range vs {
			out[i] = groupPartition("t", PartitionOffsets{Partition: i, Latest: vs[i], HighWatermark: vs[i]},
				position{committed: ptr(0)})
		}
		return out
	}
	if v, err := Judge("g", lags(3, 0), "", false); err != nil || v.TotalLag == nil || *v.TotalLag != 3 {
		t.Errorf("total lag of (3, 0) = %v, %v; want 3", v.TotalLag, err)
	}
	if _, err := Judge("g", lags(math.MaxInt64, 1), "", false); err == nil {
		t.Errorf("a total lag past 2^63 - 1 must say it does not fit")
	}
}

// A group coordinator still loading (COORDINATOR_LOAD_IN_PROGRESS) is asked again.
func TestCoordinatorLoadingIsRetried(t *testing.T) {
	c := newCluster(t, withOffsetsTopic(), kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 4)
	acctest.FakeCommit(t, c, "g", "t", 0, 1)
	loading := 2
	c.ControlKey(int16(kmsg.DescribeGroups), func(r kmsg.Request) (kmsg.Response, error, bool) {
		if loading == 0 {
			return nil, nil, false
		}
		loading--
		c.KeepControl()
		req, _ := r.(*kmsg.DescribeGroupsRequest)
		resp := kmsg.NewPtrDescribeGroupsResponse()
		resp.Version = req.Version
		for _, g := range req.Groups {
			rg := kmsg.NewDescribeGroupsResponseGroup()
			rg.Group, rg.ErrorCode = g, 14
			resp.Groups = append(resp.Groups, rg)
		}
		return resp, nil, true
	})
	cl := newClient(t, c, 5*time.Second)
	got, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	if err != nil || len(got.Partitions) != 1 || *got.Partitions[0].Lag != 3 {
		t.Fatalf("got %+v, %v; want lag 3 once the coordinator has loaded", got, err)
	}
}

// A cluster where no group ever existed has no __consumer_offsets: the read says the group does
// not exist without FindCoordinator, which would make the broker create that topic. ListGroups on
// every broker, which creates nothing, decided it (twice: a "no" is asked again fresh).
func TestGroupReadOnClusterWithoutGroups(t *testing.T) {
	// kfake, like a fresh Kafka, has no __consumer_offsets
	c := newCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(1, "t"))
	var (
		mu                 sync.Mutex
		coordinatorLookups int
		listedOn           = map[int32]int{}
	)
	c.Control(func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		switch kmsg.Key(r.Key()) {
		case kmsg.FindCoordinator:
			coordinatorLookups++
		case kmsg.ListGroups:
			listedOn[c.CurrentNode()]++
		}
		return nil, nil, false
	})
	cl := newClient(t, c, 3*time.Second)
	_, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	var gnf *GroupNotFoundError
	if !errors.As(err, &gnf) || !gnf.NoGroups {
		t.Fatalf("got %v; want GroupNotFoundError saying no group ever existed", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if coordinatorLookups != 0 {
		t.Fatalf("sent %d FindCoordinator requests; want none", coordinatorLookups)
	}
	// Once per broker: the metadata that lacks __consumer_offsets was requested by this read, so
	// it is fresh and believed at once (kafka-go's cached layout took a second pass: 2 each).
	if diff := cmp.Diff(map[int32]int{0: 1, 1: 1, 2: 1}, listedOn); diff != "" {
		t.Fatalf("ListGroups requests by broker (-want +got):\n%s", diff)
	}
}

// A group DescribeGroups describes is "classic" where the broker names kinds (ListGroups v5, Kafka
// 3.8+), and has no kind where it does not, as kafka_consumer_groups reads it from ListGroups
// (the two data sources disagreed on brokers before 3.8).
func TestGroupTypeFollowsListGroups(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []kfake.Opt
		want string
	}{
		{"ListGroups v5", nil, ClassicGroup},
		{"Kafka 3.7: ListGroups v4", []kfake.Opt{kfake.MaxVersions(kversion.V3_7_0())}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, append([]kfake.Opt{kfake.SeedTopics(1, "t")}, tc.opts...)...)
			acctest.FakeCommit(t, c, "g", "t", 0, 0)
			cl := newClient(t, c, 5*time.Second)
			got, err := cl.GroupOffsets(t.Context(), GroupOffsetsRequest{GroupID: "g"})
			if err != nil {
				t.Fatal(err)
			}
			listed, err := cl.ConsumerGroups(t.Context(), ConsumerGroupsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Type != tc.want || len(listed) != 1 || listed[0].Type != tc.want {
				t.Fatalf("GroupOffsets type %q, ConsumerGroups %s; want %q from both", got.Type, showGroups(listed), tc.want)
			}
		})
	}
}
