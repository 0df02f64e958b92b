package kafkaclient

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/segmentio/kafka-go"
)

// TopicsOffsetsRequest selects topics by name.
type TopicsOffsetsRequest struct {
	// Name, when set, must match the whole topic name (see WholeMatch); nil selects every topic.
	Name *regexp.Regexp
	// IncludeInternal also selects Kafka's internal topics (__consumer_offsets,
	// __transaction_state, ...), which Metadata marks as internal.
	IncludeInternal bool
	Isolation       Isolation
}

// TopicOffsets is one selected topic's partitions.
type TopicOffsets struct {
	Name     string
	Internal bool
	// Partitions are sorted by partition, with Earliest and Latest.
	Partitions []PartitionOffsets
}

// TopicsOffsets reads the earliest and latest offsets of every partition of the selected topics,
// sorted by name, within the Client's timeout. It sends one Metadata request (a null topic list:
// every topic the principal may DESCRIBE; never an auto-creation) and, for each of the earliest
// and the latest offset, one ListOffsets request per partition leader carrying that leader's
// partitions of every selected topic: the requests grow with the brokers, not with the topics.
func (c *Client) TopicsOffsets(ctx context.Context, req TopicsOffsetsRequest) ([]TopicOffsets, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	tt := c.acquireAllTopics()
	defer c.release(tt)

	var out []TopicOffsets
	err := c.withRetries(ctx, tt, func(bool) error {
		md, err := c.metadata(ctx, tt) // no topic named: every topic
		if err != nil {
			return err
		}
		selected, leaders, err := selectTopics(md, req)
		if err != nil {
			return err
		}
		offsets, err := listTopicsOffsets(ctx, tt, OffsetsRequest{Isolation: req.Isolation}, leaders)
		if err != nil {
			return err
		}
		out = selected
		for i := range out {
			out[i].Partitions = offsets[out[i].Name]
		}
		return nil
	})
	return out, err
}

// selectTopics picks the topics of md that req selects, sorted by name, and the leader of each of
// their partitions. A topic that Metadata answers with an error (LEADER_NOT_AVAILABLE while it is
// being created) fails the attempt, retriable codes being retried.
func selectTopics(md *kafka.MetadataResponse, req TopicsOffsetsRequest) ([]TopicOffsets, map[topicPartition]kafka.Broker, error) {
	var selected []TopicOffsets
	leaders := map[topicPartition]kafka.Broker{}
	for _, t := range md.Topics {
		if t.Internal && !req.IncludeInternal || req.Name != nil && !req.Name.MatchString(t.Name) {
			continue
		}
		if t.Error != nil {
			return nil, nil, topicError(t.Error, t.Name)
		}
		selected = append(selected, TopicOffsets{Name: t.Name, Internal: t.Internal})
		for _, p := range t.Partitions {
			if p.Leader.Host == "" { // kafka-go leaves the leader empty when Metadata names none
				return nil, nil, &BrokerError{Op: "Metadata", Topic: t.Name, Partition: p.ID, Code: noLeaderCode(p.Error), NoLeader: true}
			}
			leaders[topicPartition{t.Name, p.ID}] = p.Leader
		}
	}
	slices.SortFunc(selected, func(a, b TopicOffsets) int { return strings.Compare(a.Name, b.Name) })
	return selected, leaders, nil
}
