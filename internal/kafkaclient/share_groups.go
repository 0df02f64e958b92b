package kafkaclient

// Share groups (KIP-932, Kafka 4.0; on by default from 4.4, share.version=2): queue-like groups
// whose members share partitions and acknowledge records one by one. They keep no consumer-group
// commits (OffsetFetch answers nothing for them); their progress per partition is the
// share-partition start offset (every record before it is acknowledged or archived) and the lag
// (KIP-1226, Kafka 4.2: the records from the start offset up to the high watermark not yet
// acknowledged), both read with DescribeShareGroupOffsets from the group's coordinator, as
// kafka-share-groups.sh --describe prints them (START-OFFSET, LAG).

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

// Group kinds, as ListGroups v5 (KIP-1043) names them.
const (
	ClassicGroup  = "classic"  // the classic rebalance protocol (JoinGroup/SyncGroup)
	ConsumerGroup = "consumer" // Kafka 4's consumer protocol (KIP-848)
	ShareGroup    = "share"    // KIP-932
	StreamsGroup  = "streams"  // KIP-1071
)

// shareOffsets is a share group's start offset and lag of every partition it has state for
// (start offset -1: none, left out of starts, as OffsetFetch leaves out partitions without a
// commit); a lag the broker does not give (below v1, or -1) is left out of lags. subscribed is
// the topics of the partitions with state and no start offset: an idle group that subscribed to
// the topic and has delivered nothing there, a reader of the topic all the same
// (kafka-share-groups.sh --describe lists it).
type shareOffsets struct {
	starts, lags map[string]map[int]int64
	subscribed   map[string]bool
}

// fetchShareOffsets reads one share group's offsets from its coordinator.
func (gr *groupReads) fetchShareOffsets(ctx context.Context, coordinator leader, group string) (shareOffsets, error) {
	got, err := gr.describeShareOffsets(ctx, coordinator, []string{group})
	if err != nil {
		return shareOffsets{}, err
	}
	g, ok := got[group]
	if !ok {
		return shareOffsets{}, &GroupNotFoundError{GroupID: group, State: "Dead", Op: "DescribeShareGroupOffsets"}
	}
	return g, nil
}

// describeShareOffsets asks coordinator for the offsets of groups in one DescribeShareGroupOffsets
// request (a null topic list: every topic-partition each group has state for). A group the
// broker answers GROUP_ID_NOT_FOUND for (gone since it was listed) is left out.
func (gr *groupReads) describeShareOffsets(ctx context.Context, coordinator leader, groups []string) (map[string]shareOffsets, error) {
	op := fmt.Sprintf("DescribeShareGroupOffsets for %d group%s", len(groups), plural(len(groups)))
	if len(groups) == 1 {
		op = fmt.Sprintf("DescribeShareGroupOffsets for group %q", groups[0])
	}
	req := &kmsg.DescribeShareGroupOffsetsRequest{}
	for _, g := range groups {
		req.Groups = append(req.Groups, kmsg.DescribeShareGroupOffsetsRequestGroup{GroupID: g}) // Topics null: every topic
	}
	conn, err := gr.cluster.brokers.Get(ctx, coordinator.address)
	if err != nil {
		return nil, gr.cluster.requestError(op, coordinator.address, int(coordinator.id), err)
	}
	v, served := conn.Version(kmsg.DescribeShareGroupOffsets) // below v1 the answer has no lag: Lag reads -1
	if !served {
		// Kafka 4.0 has share groups (early access) but no API to read their progress: nothing
		// can say whether such a group has read a topic, so no answer is given (fail closed).
		return nil, &UnsupportedError{What: fmt.Sprintf("%s: reading a share group's progress "+
			"(DescribeShareGroupOffsets, API key 90, KIP-932) on broker %d", op, coordinator.id), Since: "4.1"}
	}
	m, err := conn.RoundTrip(ctx, req)
	if err != nil {
		return nil, gr.cluster.requestError(op, coordinator.address, int(coordinator.id), err)
	}
	res, err := answerAs[*kmsg.DescribeShareGroupOffsetsResponse](op, m)
	if err != nil {
		return nil, err
	}
	if len(res.Groups) != len(groups) {
		return nil, fmt.Errorf("%s: %d groups in the answer, want %d", op, len(res.Groups), len(groups))
	}
	out := make(map[string]shareOffsets, len(groups))
	for _, g := range res.Groups {
		switch err := groupError("DescribeShareGroupOffsets", g.GroupID, codeError(g.ErrorCode)); {
		case errors.As(err, new(*GroupNotFoundError)):
			continue
		case err != nil:
			return nil, err
		}
		so := shareOffsets{starts: map[string]map[int]int64{}, lags: map[string]map[int]int64{}, subscribed: map[string]bool{}}
		for _, t := range g.Topics {
			for _, p := range t.Partitions {
				if err := groupError("DescribeShareGroupOffsets", g.GroupID, codeError(p.ErrorCode)); err != nil {
					var be *BrokerError
					if errors.As(err, &be) {
						be.Topic, be.Partition = t.Topic, int(p.Partition)
					}
					return nil, err
				}
				if p.StartOffset < 0 {
					so.subscribed[t.Topic] = true
					continue
				}
				setOffset(so.starts, t.Topic, int(p.Partition), p.StartOffset)
				if p.Lag >= 0 && v >= wire.ShareGroupLagVersion {
					setOffset(so.lags, t.Topic, int(p.Partition), p.Lag)
				}
			}
		}
		out[g.GroupID] = so
	}
	return out, nil
}

// fetchAllShareOffsets reads the offsets of every listed share group from the broker that listed
// it, one request per coordinator (per maxGroupsPerOffsetFetch groups), coordinators at once, as
// commits (OffsetFetch's shape, the start offset as the committed offset), lags by group, and the
// topics each subscribed to without a start offset there (shareOffsets.subscribed).
func (gr *groupReads) fetchAllShareOffsets(ctx context.Context, listed map[string]listedGroupInfo) (map[string][]kmsg.OffsetFetchResponseGroupTopic, map[string]map[topicPartition]int64, subscriptions, error) {
	var (
		mu         sync.Mutex
		wg         sync.WaitGroup
		errs       []error
		commits    = map[string][]kmsg.OffsetFetchResponseGroupTopic{}
		lags       = map[string]map[topicPartition]int64{}
		subscribed = subscriptions{}
	)
	for coordinator, groups := range byCoordinator(listed, true) {
		slices.Sort(groups)
		wg.Go(func() {
			for chunk := range slices.Chunk(groups, maxGroupsPerOffsetFetch) {
				got, err := gr.describeShareOffsets(ctx, coordinator, chunk)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				for id, so := range got {
					commits[id], lags[id] = so.asCommits()
					subscribed.add(id, slices.Collect(maps.Keys(so.subscribed)))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return commits, lags, subscribed, firstError(errs)
}

// asCommits is the start offsets in OffsetFetch's shape, and the lags by partition.
func (so shareOffsets) asCommits() ([]kmsg.OffsetFetchResponseGroupTopic, map[topicPartition]int64) {
	topics := []kmsg.OffsetFetchResponseGroupTopic{}
	lags := map[topicPartition]int64{}
	for topic, ps := range so.starts {
		t := kmsg.OffsetFetchResponseGroupTopic{Topic: topic}
		for p, start := range ps {
			t.Partitions = append(t.Partitions, kmsg.OffsetFetchResponseGroupTopicPartition{Partition: int32(p), Offset: start})
			if lag, ok := so.lags[topic][p]; ok {
				lags[topicPartition{topic, p}] = lag
			}
		}
		topics = append(topics, t)
	}
	return topics, lags
}

func setOffset(m map[string]map[int]int64, topic string, partition int, offset int64) {
	if m[topic] == nil {
		m[topic] = map[int]int64{}
	}
	m[topic][partition] = offset
}
