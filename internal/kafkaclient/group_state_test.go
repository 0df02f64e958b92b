package kafkaclient

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// listGroupsAs makes c answer every ListGroups with its own answer as of now, each group's state
// replaced by state: a Kafka-compatible service that lists every group as Unknown.
func listGroupsAs(t *testing.T, c *kfake.Cluster, state string) {
	t.Helper()
	res, err := kmsg.NewPtrListGroupsRequest().RequestWith(context.Background(), acctest.FakeClient(t, c))
	if err != nil || len(res.Groups) == 0 {
		t.Fatalf("ListGroups: %+v, %v", res, err)
	}
	for i := range res.Groups {
		res.Groups[i].GroupState = state
	}
	c.ControlKey(kmsg.ListGroups.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		answer := *res
		answer.Version = req.GetVersion()
		return &answer, nil, true
	})
}

// Both group reads give one group the same state, by one rule: where ListGroups lists it as
// Unknown while DescribeGroups describes it Empty, both say Empty.
func TestGroupReadsAgreeOnState(t *testing.T) {
	c := newCluster(t, withOffsetsTopic(), kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 5)
	acctest.FakeCommit(t, c, "g", "t", 0, 5)
	listGroupsAs(t, c, "Unknown")
	cl := newClient(t, c, 10*time.Second)

	one, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	if err != nil {
		t.Fatal(err)
	}
	all, err := cl.ConsumerGroups(context.Background(), ConsumerGroupsRequest{})
	if err != nil || len(all) != 1 {
		t.Fatalf("got %+v, %v; want group g", all, err)
	}
	if one.State != "Empty" || all[0].State != one.State {
		t.Fatalf("kafka_consumer_group_offsets says %q, kafka_consumer_groups %q; want both Empty (DescribeGroups')", one.State, all[0].State)
	}
}
