package kafkaclient

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// joinWithoutCommits makes a franz-go consumer (classic protocol) a member of group on topic,
// owning all its partitions, and keeps it there, never committing, until the test ends.
func joinWithoutCommits(t *testing.T, c *kfake.Cluster, group, topic string) {
	t.Helper()
	assigned := make(chan struct{}, 1)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.DisableAutoCommit(), kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) {
			select {
			case assigned <- struct{}{}:
			default:
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	polled, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for polled.Err() == nil {
			cl.PollFetches(polled)
		}
	}()
	t.Cleanup(func() { cancel(); <-done; cl.Close() })
	select {
	case <-assigned:
	case <-time.After(30 * time.Second):
		t.Fatalf("group %s: no partition assigned after 30s", group)
	}
}

// On kfake, a running classic member owns topic a's three partitions (two hold records) and
// has committed nothing. kafka_consumer_groups' read lists its group as assigned, with two
// partitions of unknown lag and no total lag; the admin-committed groups beside it are read as
// before. One DescribeGroups goes to the live group's coordinator: the Empty groups, which have
// no members, are not described.
func TestConsumerGroupsAssignedWithoutCommits(t *testing.T) {
	c := groupsCluster(t)
	joinWithoutCommits(t, c, "live", "a")
	counts := acctest.CountRequests(c)
	cl, _ := countingClient(t, c)
	got, err := cl.ConsumerGroups(context.Background(), ConsumerGroupsRequest{Topics: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	var live *GroupSummary
	for i, g := range got {
		if g.GroupID == "live" {
			live = &got[i]
		} else if !g.Committed || g.Assigned || g.Uncommitted != 0 {
			t.Errorf("%s: %+v; want committed only", g.GroupID, g)
		}
	}
	if live == nil {
		t.Fatalf("the live group is not listed: %s", showGroups(got))
	}
	if !live.Assigned || live.Committed || live.Uncommitted != 2 || live.TotalLag != nil || live.MaxTimeLagMs != nil ||
		len(live.Topics) != 1 || live.Topics[0] != "a" {
		t.Errorf("live: %+v; want assigned, not committed, 2 uncommitted partitions (a/1 holds no record), "+
			"no total lag, topics [a]", *live)
	}
	if n := counts()[int16(kmsg.DescribeGroups)]; n != 1 {
		t.Errorf("DescribeGroups: %d requests, want 1 (the live group's coordinator only)", n)
	}
}

// A streams member's active tasks name the subtopology whose source topics they read; a task of a
// subtopology the topology does not hold is an error, never a reader left out.
func TestStreamsOwned(t *testing.T) {
	topology := &kmsg.StreamsGroupDescribeResponseGroupTopology{Subtopologies: []kmsg.StreamsGroupDescribeResponseGroupTopologySubtopology{
		{SubtopologyID: "0", SourceTopics: []string{"in", "other"}},
		{SubtopologyID: "1", RepartitionSourceTopics: []kmsg.TopicInfo{{Topic: "app-repartition"}}},
	}}
	member := func(subtopology string, partitions ...int32) kmsg.StreamsGroupDescribeResponseGroupMember {
		return kmsg.StreamsGroupDescribeResponseGroupMember{MemberID: "m", Assignment: kmsg.StreamsAssignment{
			ActiveTasks: []kmsg.TaskIDs{{SubtopologyID: subtopology, Partitions: partitions}}}}
	}
	out, counts := owned{}, memberCounts{}
	g := kmsg.StreamsGroupDescribeResponseGroup{Group: "app", Topology: topology,
		Members: []kmsg.StreamsGroupDescribeResponseGroupMember{member("0", 1), member("1", 0)}}
	if err := streamsOwned(out, counts, g); err != nil {
		t.Fatal(err)
	}
	want := map[topicPartition]bool{{"in", 1}: true, {"other", 1}: true, {"app-repartition", 0}: true}
	if diff := cmp.Diff(want, out["app"], cmp.AllowUnexported(topicPartition{})); diff != "" || counts["app"] != 2 {
		t.Errorf("members %d, want 2; owned partitions (-want +got):\n%s", counts["app"], diff)
	}
	g.Members = []kmsg.StreamsGroupDescribeResponseGroupMember{member("9", 0)}
	if err := streamsOwned(owned{}, memberCounts{}, g); err == nil || !strings.Contains(err.Error(), `subtopology "9"`) {
		t.Errorf("a task of an unknown subtopology: got %v, want an error naming it", err)
	}
}

// A share group whose member subscribes to topic a but has fetched nothing yet (no
// share-partition state, no assignment: kafka-share-groups.sh --describe --all-groups lists it)
// reads a: kafka_consumer_groups lists it as a reader of a, subscribed, and not caught up where a
// holds records. The group is kfake's answers to ListGroups,
// ShareGroupDescribe and DescribeShareGroupOffsets on broker 0.
func TestConsumerGroupsSubscribedShareGroup(t *testing.T) {
	c := groupsCluster(t)
	answer := func(key kmsg.Key, respond func(version int16) kmsg.Response) {
		c.ControlKey(int16(key), func(r kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			return respond(r.GetVersion()), nil, true
		})
	}
	answer(kmsg.ListGroups, func(v int16) kmsg.Response {
		res := kmsg.NewPtrListGroupsResponse()
		res.Version = v
		if c.CurrentNode() == 0 {
			g := kmsg.NewListGroupsResponseGroup()
			g.Group, g.ProtocolType, g.GroupState, g.GroupType = "queue", "share", "Stable", "share"
			res.Groups = append(res.Groups, g)
		}
		return res
	})
	answer(kmsg.ShareGroupDescribe, func(v int16) kmsg.Response {
		res := kmsg.NewPtrShareGroupDescribeResponse()
		res.Version = v
		g := kmsg.NewShareGroupDescribeResponseGroup()
		g.GroupID, g.GroupState = "queue", "Stable"
		m := kmsg.NewShareGroupDescribeResponseGroupMember()
		m.MemberID, m.SubscribedTopicNames = "m1", []string{"a"}
		g.Members = append(g.Members, m)
		res.Groups = append(res.Groups, g)
		return res
	})
	answer(kmsg.DescribeShareGroupOffsets, func(v int16) kmsg.Response {
		res := kmsg.NewPtrDescribeShareGroupOffsetsResponse()
		res.Version = v
		g := kmsg.NewDescribeShareGroupOffsetsResponseGroup()
		g.GroupID = "queue"
		res.Groups = append(res.Groups, g)
		return res
	})
	got, err := newClient(t, c, 5*time.Second).ConsumerGroups(context.Background(), ConsumerGroupsRequest{Topics: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []GroupSummary{{GroupID: "queue", State: "Stable", ProtocolType: "share", Type: "share", Topics: []string{"a"},
		Subscribed: true, Verdict: Verdict{NotCaughtUp: []string{ // no total lag: records wait where no lag measures them
			"a/0: no start offset, and offsets 0 to 3 wait (the share group has delivered nothing from this partition yet): with share.auto.offset.reset=latest, its default, the group would skip them",
			"a/2: no start offset, and offset 0 waits (the share group has delivered nothing from this partition yet): with share.auto.offset.reset=latest, its default, the group would skip them",
		}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("ConsumerGroups (-want +got):\n%s", diff)
	}
}
