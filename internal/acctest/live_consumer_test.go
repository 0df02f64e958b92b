package acctest_test

import (
	"testing"
	"time"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// The live consumer commits record by record up to where it is told, in the group.
func TestAccHarnessLiveConsumer(t *testing.T) {
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 2, nil)
	group := topic + "-group"
	k.Produce(topic, 0, 5)
	k.Produce(topic, 1, 3)
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 1, 1: 0}})
	done := k.LiveConsumer(group, topic, map[int32]int64{0: 4, 1: 3}, 0, 10*time.Millisecond)
	if err := done(); err != nil {
		t.Fatal(err)
	}
	if got := k.GroupCommitted(group)[topic]; got[0] != 4 || got[1] != 3 {
		t.Fatalf("committed %v, want 4 and 3", got)
	}
	if state, members := k.DescribeGroup(group); state != "Stable" || len(members) != 1 {
		t.Fatalf("group %s with %v, want Stable with the consumer", state, members)
	}
}
