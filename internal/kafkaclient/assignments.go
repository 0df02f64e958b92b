package kafkaclient

// A group reads a topic before it commits there: a member just deployed, a consumer with
// auto-commit off, or one that keeps its offsets outside Kafka (Flink, Spark) owns partitions
// and has no commit on them. Kafka's tools list such a group as a reader
// (kafka-consumer-groups.sh --describe --all-groups); so does kafka_consumer_groups, from the
// partitions its members own now, as each kind's describe API answers them from the group's
// coordinator: DescribeGroups for classic groups (the consumer protocol's member assignment),
// ConsumerGroupDescribe (KIP-848), ShareGroupDescribe (KIP-932) and StreamsGroupDescribe
// (KIP-1071: a member owns tasks; an active task of a subtopology reads that partition of each of
// its source topics).

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// owned is, by group, the partitions its members own now.
type owned map[string]map[topicPartition]bool

func (o owned) add(group, topic string, partitions []int32) {
	if o[group] == nil {
		o[group] = map[topicPartition]bool{}
	}
	for _, p := range partitions {
		o[group][topicPartition{topic, int(p)}] = true
	}
}

// memberCounts is, by group, how many members it has now, as its describe API answers.
type memberCounts map[string]int

// subscriptions is, by group, the topics its members subscribe to, as ConsumerGroupDescribe
// (KIP-848) and ShareGroupDescribe (KIP-932) name them: a member reads a topic it subscribes to
// before it owns any partition of it (a share member that has fetched nothing yet, say).
type subscriptions map[string]map[string]bool

func (s subscriptions) add(group string, topics []string) {
	if s[group] == nil {
		s[group] = map[string]bool{}
	}
	for _, t := range topics {
		s[group][t] = true
	}
}

// members is what a describe API says of groups' members, and DescribeGroups of classic groups'
// states (describedState).
type members struct {
	owns       owned
	counts     memberCounts
	subscribed subscriptions
	states     map[string]string
}

// fetchAllAssignments reads what the members of every listed group with members own and
// subscribe to, one describe request per coordinator and kind (per maxGroupsPerOffsetFetch
// groups), coordinators at once. Groups listed Empty or Dead have no member and are not asked
// about; a group gone since it was listed is left out. A classic group's state that
// DescribeGroups answers replaces the listed one in listed (groupState's rule).
func (gr *groupReads) fetchAllAssignments(ctx context.Context, listed map[string]listedGroupInfo) (owned, subscriptions, error) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
		out  = owned{}
		subs = subscriptions{}
	)
	for coordinator, byKind := range describable(listed) {
		wg.Go(func() {
			for kind, groups := range byKind {
				slices.Sort(groups)
				for chunk := range slices.Chunk(groups, maxGroupsPerOffsetFetch) {
					got, err := gr.describeAssignments(ctx, coordinator, kind, chunk)
					mu.Lock()
					errs = append(errs, err)
					maps.Copy(out, got.owns)
					maps.Copy(subs, got.subscribed)
					for id, state := range got.states {
						info := listed[id]
						info.state = state
						listed[id] = info
					}
					mu.Unlock()
					if err != nil {
						return
					}
				}
			}
		})
	}
	wg.Wait()
	return out, subs, firstError(slices.DeleteFunc(errs, func(err error) bool { return err == nil }))
}

// describable is the listed groups that may have members, by coordinator, then by the kind of
// describe request that answers for them: a group's kind (ListGroups v5), or classic for a
// consumer group of a broker that does not say. Groups of other protocol types (Kafka Connect's)
// own no topic partitions: they are described only where the listed state is none of Kafka's
// (groupState's rule).
func describable(listed map[string]listedGroupInfo) map[leader]map[string][]string {
	out := map[leader]map[string][]string{}
	for id, g := range listed {
		if g.state == "Empty" || g.state == "Dead" {
			continue
		}
		kind := g.groupType
		if kind == "" || kind == ClassicGroup {
			if g.protocolType != "consumer" && kafkaState(g.state) {
				continue
			}
			kind = ClassicGroup
		}
		if out[g.coordinator] == nil {
			out[g.coordinator] = map[string][]string{}
		}
		out[g.coordinator][kind] = append(out[g.coordinator][kind], id)
	}
	return out
}

// describeAssignments asks coordinator what the members of groups, all of one kind, own and
// subscribe to, and how many members each has.
func (gr *groupReads) describeAssignments(ctx context.Context, coordinator leader, kind string, groups []string) (members, error) {
	var (
		req kmsg.Request
		op  string
	)
	switch kind {
	case ClassicGroup:
		req, op = &kmsg.DescribeGroupsRequest{Groups: groups}, "DescribeGroups"
	case ConsumerGroup:
		req, op = &kmsg.ConsumerGroupDescribeRequest{Groups: groups}, "ConsumerGroupDescribe"
	case ShareGroup:
		req, op = &kmsg.ShareGroupDescribeRequest{GroupIDs: groups}, "ShareGroupDescribe"
	case StreamsGroup:
		req, op = &kmsg.StreamsGroupDescribeRequest{Groups: groups}, "StreamsGroupDescribe"
	default:
		// A kind this provider does not know may read topics in a way it cannot see: fail closed.
		return members{}, fmt.Errorf("group %q is of kind %q, which this provider cannot describe: it cannot tell "+
			"which topics the group reads. Upgrade the provider, or narrow group_id_regex to leave the group out",
			groups[0], kind)
	}
	m, err := gr.cluster.brokers.RoundTrip(ctx, coordinator.address, req)
	if err != nil {
		return members{}, gr.cluster.requestError(fmt.Sprintf("%s for %d group%s", op, len(groups), plural(len(groups))),
			coordinator.address, int(coordinator.id), err)
	}
	out, counts, subs, states := owned{}, memberCounts{}, subscriptions{}, map[string]string{}
	switch res := m.(type) {
	case *kmsg.DescribeGroupsResponse:
		for _, g := range res.Groups {
			err = errors.Join(err, classicOwned(out, counts, g))
			if state, ok := describedState(g); ok {
				states[g.Group] = state
			}
		}
	case *kmsg.ConsumerGroupDescribeResponse:
		for _, g := range res.Groups {
			err = errors.Join(err, consumerOwned(out, counts, subs, g))
		}
	case *kmsg.ShareGroupDescribeResponse:
		for _, g := range res.Groups {
			err = errors.Join(err, shareOwned(out, counts, subs, g))
		}
	case *kmsg.StreamsGroupDescribeResponse:
		for _, g := range res.Groups {
			err = errors.Join(err, streamsOwned(out, counts, g))
		}
	default:
		return members{}, fmt.Errorf("%s: unexpected answer %T", op, m)
	}
	return members{out, counts, subs, states}, err
}

// described says whether a describe answer holds the group: false with no error for a group gone
// since it was listed (GROUP_ID_NOT_FOUND: it owns nothing), false with the group's error otherwise.
func described(op, group string, code int16) (bool, error) {
	err := groupError(op, group, codeError(code))
	if errors.As(err, new(*GroupNotFoundError)) {
		return false, nil
	}
	return err == nil, err
}

// classicOwned adds what a classic group's members own: their consumer-protocol assignments.
// Groups of other protocol types (Kafka Connect's) own no partitions.
func classicOwned(out owned, counts memberCounts, g kmsg.DescribeGroupsResponseGroup) error {
	if ok, err := described("DescribeGroups", g.Group, g.ErrorCode); !ok {
		return err
	}
	counts[g.Group] = len(g.Members)
	if g.ProtocolType != "consumer" {
		return nil
	}
	for _, m := range g.Members {
		topics, err := wire.ClassicAssignment(m.MemberAssignment)
		if err != nil {
			return fmt.Errorf("DescribeGroups for group %q: member %q: %w", g.Group, m.MemberID, err)
		}
		for topic, partitions := range topics {
			out.add(g.Group, topic, partitions)
		}
	}
	return nil
}

// consumerOwned adds what the members of a consumer-protocol group (KIP-848) own and subscribe to.
func consumerOwned(out owned, counts memberCounts, subs subscriptions, g kmsg.ConsumerGroupDescribeResponseGroup) error {
	if ok, err := described("ConsumerGroupDescribe", g.Group, g.ErrorCode); !ok {
		return err
	}
	counts[g.Group] = len(g.Members)
	for _, m := range g.Members {
		for _, tp := range m.Assignment.TopicPartitions {
			out.add(g.Group, tp.Topic, tp.Partitions)
		}
		subs.add(g.Group, m.SubscribedTopics)
	}
	return nil
}

// shareOwned adds what the members of a share group (KIP-932) own and subscribe to.
func shareOwned(out owned, counts memberCounts, subs subscriptions, g kmsg.ShareGroupDescribeResponseGroup) error {
	if ok, err := described("ShareGroupDescribe", g.GroupID, g.ErrorCode); !ok {
		return err
	}
	counts[g.GroupID] = len(g.Members)
	for _, m := range g.Members {
		for _, tp := range m.Assignment.TopicPartitions {
			out.add(g.GroupID, tp.Topic, tp.Partitions)
		}
		subs.add(g.GroupID, m.SubscribedTopicNames)
	}
	return nil
}

// streamsOwned adds the source partitions of a streams group's active tasks.
func streamsOwned(out owned, counts memberCounts, g kmsg.StreamsGroupDescribeResponseGroup) error {
	if ok, err := described("StreamsGroupDescribe", g.Group, g.ErrorCode); !ok {
		return err
	}
	counts[g.Group] = len(g.Members)
	sources := map[string][]string{} // by subtopology
	if g.Topology != nil {
		for _, s := range g.Topology.Subtopologies {
			sources[s.SubtopologyID] = s.SourceTopics
			for _, r := range s.RepartitionSourceTopics {
				sources[s.SubtopologyID] = append(sources[s.SubtopologyID], r.Topic)
			}
		}
	}
	for _, m := range g.Members {
		for _, task := range m.Assignment.ActiveTasks {
			topics, ok := sources[task.SubtopologyID]
			if !ok { // what it reads is unknown: fail closed rather than leave it out
				return fmt.Errorf("StreamsGroupDescribe for group %q: member %q has active tasks of subtopology %q, "+
					"which the group's topology does not hold: the topics it reads are unknown; read again", g.Group,
					m.MemberID, task.SubtopologyID)
			}
			for _, topic := range topics {
				out.add(g.Group, topic, task.Partitions)
			}
		}
	}
	return nil
}
