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
	"fmt"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// Group kinds, as ListGroups v5 (KIP-1043) names them.
const (
	ClassicGroup  = "classic"  // the classic rebalance protocol (JoinGroup/SyncGroup)
	ConsumerGroup = "consumer" // Kafka 4's consumer protocol (KIP-848)
	ShareGroup    = "share"    // KIP-932
	StreamsGroup  = "streams"  // KIP-1071
)

// fetchShareOffsets reads a share group's start offset and lag of every partition it has state
// for (DescribeShareGroupOffsets with a null topic list). Partitions without state (start offset
// -1) are left out, as OffsetFetch leaves out partitions without a commit; a lag the broker does
// not give (below v1, or -1) is left out of lags.
func (c *Client) fetchShareOffsets(ctx context.Context, coordinator leader, group string) (starts, lags map[string]map[int]int64, err error) {
	op := fmt.Sprintf("DescribeShareGroupOffsets for group %q", group)
	req := &wire.DescribeShareGroupOffsetsRequest{Groups: []wire.DescribeShareGroupOffsetsRequestGroup{{GroupID: group}}}
	conn, err := c.brokers.Get(ctx, coordinator.address)
	if err != nil {
		return nil, nil, c.requestError(op, coordinator.address, int(coordinator.id), err)
	}
	v, _ := conn.Version(wire.DescribeShareGroupOffsets) // below v1 the answer has no lag: Lag reads 0
	m, err := conn.RoundTrip(ctx, req)
	if err != nil {
		return nil, nil, c.requestError(op, coordinator.address, int(coordinator.id), err)
	}
	res, ok := m.(*wire.DescribeShareGroupOffsetsResponse)
	if !ok || len(res.Groups) != 1 || res.Groups[0].GroupID != group {
		return nil, nil, fmt.Errorf("%s: unexpected answer %T", op, m)
	}
	g := res.Groups[0]
	if err := groupError("DescribeShareGroupOffsets", group, codeError(g.ErrorCode)); err != nil {
		return nil, nil, err
	}
	starts, lags = map[string]map[int]int64{}, map[string]map[int]int64{}
	for _, t := range g.Topics {
		for _, p := range t.Partitions {
			if err := groupError("DescribeShareGroupOffsets", group, codeError(p.ErrorCode)); err != nil {
				if be, ok := err.(*BrokerError); ok { //nolint:errorlint // groupError returns it unwrapped
					be.Topic, be.Partition = t.TopicName, int(p.PartitionIndex)
				}
				return nil, nil, err
			}
			if p.StartOffset < 0 {
				continue
			}
			setOffset(starts, t.TopicName, int(p.PartitionIndex), p.StartOffset)
			if p.Lag >= 0 && v >= wire.ShareGroupLagVersion {
				setOffset(lags, t.TopicName, int(p.PartitionIndex), p.Lag)
			}
		}
	}
	return starts, lags, nil
}

func setOffset(m map[string]map[int]int64, topic string, partition int, offset int64) {
	if m[topic] == nil {
		m[topic] = map[int]int64{}
	}
	m[topic][partition] = offset
}

// shareLags puts a share group's lags, as its coordinator counts them, in place of latest − start
// offset (groupPartition's rule, which counts the acknowledged records after the start offset
// too). Where the broker gives no lag (Kafka 4.0 and 4.1), latest − start offset stays: an upper
// bound, never less than the records still to deliver. The start offset is never "out of range"
// as a consumer's commit is: the broker moves it with the log start.
func shareLags(partitions []GroupPartitionOffsets, lags map[int]int64) {
	for i := range partitions {
		p := &partitions[i]
		p.OutOfRange = false
		if lag, ok := lags[p.Partition]; ok && p.Committed != nil {
			p.Lag = &lag
		}
	}
}
