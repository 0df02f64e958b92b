package kafkaclient

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// A share group without members whose start offset was set to 4 (kadm AlterShareGroupOffsets) on
// a partition of 10 records, and never fetched from another: it exists (never "not found"), its
// kind is share, the start offset reads as the commit and the lag is 6, from the broker (v1) or,
// from a broker that answers no lag (DescribeShareGroupOffsets v0, Kafka 4.1), latest −
// start offset; never 0. kafka_consumer_groups' read lists it with the same lag.
func TestShareGroupOffsets(t *testing.T) {
	for _, tc := range []struct {
		name    string
		maxV90  int16
		wantLag int64
	}{
		{name: "lag from the broker (v1)", maxV90: 1, wantLag: 6},
		{name: "no lag from the broker (v0): latest - start", maxV90: 0, wantLag: 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			versions := kversion.Stable()
			versions.SetMaxKeyVersion(90, tc.maxV90)
			c := newCluster(t, kfake.SeedTopics(1, "t", "u"), kfake.MaxVersions(versions))
			produce(t, c, "t", 0, 10)
			var o kadm.Offsets
			o.Add(kadm.Offset{Topic: "t", Partition: 0, At: 4, LeaderEpoch: -1})
			res, err := kadm.NewClient(acctest.FakeClient(t, c)).AlterShareGroupOffsets(context.Background(), "g", o)
			if err == nil {
				err = res.Error()
			}
			if err != nil {
				t.Fatal(err)
			}
			cl := newClient(t, c, 5*time.Second)

			got, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g", Topics: []string{"t", "u"}})
			if err != nil {
				t.Fatal(err)
			}
			want := "t/0 committed=4 earliest=0 latest=10 lag=6 outOfRange=false logEnd=10; " +
				"u/0 committed=null earliest=0 latest=0 lag=null outOfRange=false logEnd=0; "
			if got.Type != ShareGroup || got.State != "Empty" || describe(got.Partitions) != want {
				t.Fatalf("got %s/%s %s\nwant share/Empty %s", got.Type, got.State, describe(got.Partitions), want)
			}
			if got.TotalLag == nil || *got.TotalLag != tc.wantLag {
				t.Fatalf("total lag %v, want %d", got.TotalLag, tc.wantLag)
			}

			groups, err := cl.ConsumerGroups(context.Background(), ConsumerGroupsRequest{Topics: []string{"t"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(groups) != 1 || groups[0].GroupID != "g" || groups[0].Type != ShareGroup ||
				groups[0].TotalLag == nil || *groups[0].TotalLag != tc.wantLag || len(groups[0].Topics) != 1 || groups[0].Topics[0] != "t" {
				t.Fatalf("groups %+v, want g: share, topics [t], total lag %d", groups, tc.wantLag)
			}
		})
	}
}

// Kafka 4.0 lists share groups but does not serve DescribeShareGroupOffsets: reading one, alone or
// among all groups, is an error that names the API and the release that serves it, not a share
// group without progress (the error said "the 90 API ... needs Apache Kafka 0.11").
func TestShareGroupOffsetsUnserved(t *testing.T) {
	versions := kversion.Stable()
	versions.SetMaxKeyVersion(90, -1)
	c := newCluster(t, kfake.SeedTopics(1, "t"), kfake.MaxVersions(versions))
	var o kadm.Offsets
	o.Add(kadm.Offset{Topic: "t", Partition: 0, At: 0, LeaderEpoch: -1})
	// kfake's AlterShareGroupOffsets makes a share group ListGroups lists, as an early-access 4.0 does.
	if res, err := kadm.NewClient(acctest.FakeClient(t, c)).AlterShareGroupOffsets(context.Background(), "g", o); err != nil || res.Error() != nil {
		t.Fatalf("arrange the share group: %v %v", err, res.Error())
	}
	cl := newClient(t, c, 5*time.Second)
	_, errOne := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	_, errAll := cl.ConsumerGroups(context.Background(), ConsumerGroupsRequest{})
	for name, err := range map[string]error{"GroupOffsets": errOne, "ConsumerGroups": errAll} {
		var unsupported *UnsupportedError
		if !errors.As(err, &unsupported) || !strings.Contains(err.Error(), "DescribeShareGroupOffsets, API key 90, KIP-932") ||
			!strings.Contains(err.Error(), "needs Apache Kafka 4.1 or later") {
			t.Errorf("%s: %v; want the unsupported DescribeShareGroupOffsets, Kafka 4.1", name, err)
		}
	}
}

// An idle share group that subscribed to a topic and delivered nothing there: the broker keeps
// share-partition state without a start offset (-1). It reads the topic all the same, as
// kafka-share-groups.sh --describe lists it: kafka_consumer_groups lists it as
// subscribed to the topic, and a read of the group covers the topic, where its records wait.
func TestIdleShareGroupIsAReader(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t", "u"))
	produce(t, c, "t", 0, 10)
	produce(t, c, "u", 0, 3)
	var o kadm.Offsets
	o.Add(kadm.Offset{Topic: "t", Partition: 0, At: 10, LeaderEpoch: -1})
	res, err := kadm.NewClient(acctest.FakeClient(t, c)).AlterShareGroupOffsets(context.Background(), "g", o)
	if err == nil {
		err = res.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
	c.ControlKey(int16(kmsg.DescribeShareGroupOffsets), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		res := kmsg.NewPtrDescribeShareGroupOffsetsResponse()
		res.Version = r.GetVersion()
		g := kmsg.NewDescribeShareGroupOffsetsResponseGroup()
		g.GroupID = "g"
		for _, tp := range []struct {
			topic      string
			start, lag int64
		}{{"t", 10, 0}, {"u", -1, -1}} {
			topic := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopic()
			topic.Topic = tp.topic
			p := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopicPartition()
			p.StartOffset, p.Lag = tp.start, tp.lag
			topic.Partitions = append(topic.Partitions, p)
			g.Topics = append(g.Topics, topic)
		}
		res.Groups = append(res.Groups, g)
		return res, nil, true
	})
	cl := newClient(t, c, 5*time.Second)
	groups, err := cl.ConsumerGroups(context.Background(), ConsumerGroupsRequest{Topics: []string{"u"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 || groups[0].GroupID != "g" || !groups[0].Subscribed || groups[0].Committed ||
		!slices.Equal(groups[0].Topics, []string{"u"}) || groups[0].CaughtUp {
		t.Fatalf("groups %s, want g: subscribed to u, not committed, not caught up", showGroups(groups))
	}
	got, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	if err != nil {
		t.Fatal(err)
	}
	want := "t/0 committed=10 earliest=0 latest=10 lag=0 outOfRange=false logEnd=10; " +
		"u/0 committed=null earliest=0 latest=3 lag=null outOfRange=false logEnd=3; "
	if describe(got.Partitions) != want || got.CaughtUp || len(got.NotCaughtUp) != 1 ||
		!strings.HasPrefix(got.NotCaughtUp[0], "u/0: no start offset, and offsets 0 to 2 wait") {
		t.Fatalf("got %s %+v\nwant %s, not caught up on u/0", describe(got.Partitions), got.Verdict, want)
	}
}
