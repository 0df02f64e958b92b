package kafkaclient

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// A group's state, by one rule that kafka_consumer_groups and kafka_consumer_group_offsets both
// read it by, so that they say the same of one group: DescribeGroups' answer for a classic group
// it describes (not Dead: it answers Dead for groups of the other kinds), ListGroups' otherwise
// (the groups of other kinds, and classic groups listed Empty or Dead, which a read of every group
// does not describe; Apache Kafka lists and describes a group with the same state). Some
// Kafka-compatible services list every group as Unknown, a state no Apache Kafka broker gives,
// while DescribeGroups names it: a read of every group describes such a group too.

// kafkaStates are the states Apache Kafka's coordinators give: classic groups (Stable,
// PreparingRebalance, CompletingRebalance), the consumer protocol's and streams groups' (Assigning,
// Reconciling, NotReady), and those of every kind (Empty, Dead).
var kafkaStates = []string{"Stable", "PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling",
	"NotReady", "Empty", "Dead"}

// kafkaState says whether state is one an Apache Kafka coordinator gives.
func kafkaState(state string) bool { return slices.Contains(kafkaStates, state) }

// describedState is the state DescribeGroups' answer g gives its group, where the rule takes it.
func describedState(g kmsg.DescribeGroupsResponseGroup) (string, bool) {
	return g.State, g.ErrorCode == 0 && g.State != "Dead"
}
