package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol/describegroups"
)

// GroupOffsetsRequest says which consumer group to read, and which of its topics.
type GroupOffsetsRequest struct {
	GroupID string
	// Topics restricts the read to these topics (every partition of each, committed or not); nil
	// means every topic the group has committed offsets for.
	Topics []string
	// Isolation decides what Latest means (high watermark or last stable offset).
	Isolation Isolation
}

// GroupOffsets is a consumer group's progress, as read with DescribeGroups and OffsetFetch only:
// the read never joins, syncs, heartbeats or commits.
type GroupOffsets struct {
	// State is the group's state as its coordinator reports it (Stable, Empty, Dead, ...).
	State string
	// Partitions are sorted by topic, then partition.
	Partitions []GroupPartitionOffsets
}

// GroupPartitionOffsets is one partition's committed offset and lag.
type GroupPartitionOffsets struct {
	Topic     string
	Partition int
	// Committed is the next offset the group will read (OffsetFetch); nil where it has no commit.
	Committed *int64
	// Latest is the partition's latest offset under the request's isolation level.
	Latest int64
	// Lag is Latest - Committed, clamped at 0; nil where there is no commit.
	Lag *int64
}

// GroupNotFoundError: the group has neither members nor committed offsets. Brokers do not say
// "no such group": they describe it as Dead or Empty and fetch no offsets.
type GroupNotFoundError struct {
	GroupID  string
	State    string
	NoGroups bool // __consumer_offsets does not exist: no group ever existed on this cluster
}

func (e *GroupNotFoundError) Error() string {
	if e.NoGroups {
		return fmt.Sprintf("consumer group %q does not exist: no consumer group has ever existed on this cluster "+
			"(its %s topic does not exist)", e.GroupID, offsetsTopic)
	}
	return fmt.Sprintf("consumer group %q has no members and no committed offsets (broker reports state %q): "+
		"it does not exist, it has never committed, or the provider's principal may not DESCRIBE the topics "+
		"it committed on (OffsetFetch leaves those out)", e.GroupID, e.State)
}

// GroupOffsets reads a consumer group's committed offsets and the latest offsets of its
// partitions, within the Client's timeout.
func (c *Client) GroupOffsets(ctx context.Context, req GroupOffsetsRequest) (GroupOffsets, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	// Group requests go to the coordinator, found with FindCoordinator, which makes the broker
	// create __consumer_offsets if it is missing: this transport's metadata covers that topic,
	// so that a cluster where no group ever existed is answered without creating it.
	tt := c.acquire(offsetsTopic)
	defer c.release(tt)

	var (
		out       GroupOffsets
		committed map[string]map[int]int64
		live      bool
	)
	err := c.withRetries(ctx, tt, func(fresh bool) error {
		if err := c.offsetsTopicExists(ctx, tt, fresh); err != nil {
			return err
		}
		var err error
		if out.State, live, err = c.describeGroup(ctx, tt, req.GroupID); err != nil {
			return err
		}
		committed, err = c.fetchCommitted(ctx, tt, req.GroupID)
		return err
	})
	if errors.Is(err, errNoOffsetsTopic) {
		return GroupOffsets{}, &GroupNotFoundError{GroupID: req.GroupID, State: "Dead", NoGroups: true}
	}
	if err != nil {
		return GroupOffsets{}, err
	}
	if !live && len(committed) == 0 {
		return GroupOffsets{}, &GroupNotFoundError{GroupID: req.GroupID, State: out.State}
	}

	topics := req.Topics
	if topics == nil {
		for t := range committed {
			topics = append(topics, t)
		}
	}
	slices.Sort(topics)
	topics = slices.Compact(topics)
	latest := map[string][]PartitionOffsets{}
	for _, topic := range topics {
		res, err := c.Offsets(ctx, OffsetsRequest{Topic: topic, Isolation: req.Isolation, latestOnly: true})
		var tnf *TopicNotFoundError
		if errors.As(err, &tnf) && req.Topics == nil {
			return GroupOffsets{}, fmt.Errorf("group %q has committed offsets for a topic that no longer exists "+
				"(list the topics to read in topics): %w", req.GroupID, err)
		}
		if err != nil {
			return GroupOffsets{}, err
		}
		latest[topic] = res
	}
	for _, topic := range topics {
		for _, p := range latest[topic] {
			out.Partitions = append(out.Partitions, groupPartition(topic, p, committed[topic]))
		}
	}
	return out, nil
}

// offsetsTopic is Kafka's internal topic of group metadata and committed offsets.
const offsetsTopic = "__consumer_offsets"

// errNoOffsetsTopic: __consumer_offsets does not exist, so no group does.
var errNoOffsetsTopic = errors.New(offsetsTopic + " does not exist")

// offsetsTopicExists checks, from the transport's metadata, that __consumer_offsets exists; a
// "no" from a cached layout is asked again fresh before it is believed.
func (c *Client) offsetsTopicExists(ctx context.Context, tt *topicTransport, fresh bool) error {
	md, err := c.metadata(ctx, tt, offsetsTopic)
	if err != nil {
		return err
	}
	t := findTopic(md, offsetsTopic)
	var code kafka.Error
	if t == nil || errors.As(t.Error, &code) && code == kafka.UnknownTopicOrPartition {
		if !fresh {
			return errStaleMetadata
		}
		return errNoOffsetsTopic
	}
	return nil
}

func groupPartition(topic string, p PartitionOffsets, committed map[int]int64) GroupPartitionOffsets {
	gp := GroupPartitionOffsets{Topic: topic, Partition: p.Partition, Latest: p.Latest}
	if offset, ok := committed[p.Partition]; ok {
		lag := max(p.Latest-offset, 0)
		gp.Committed, gp.Lag = &offset, &lag
	}
	return gp
}

// describeGroup returns the group's state as its coordinator reports it, and whether the group
// exists with members. DescribeGroups (through kafka-go's protocol package: its
// Client.DescribeGroups also decodes member metadata, which fails on groups that are not
// consumer groups) answers for classic groups; a group it does not know, a KIP-848 consumer
// group among them, is looked up with ListGroups on its coordinator.
func (c *Client) describeGroup(ctx context.Context, tt *topicTransport, group string) (string, bool, error) {
	m, err := tt.transport.RoundTrip(ctx, tt.addr(), &describegroups.Request{Groups: []string{group}})
	if err != nil {
		return "", false, tt.dials.requestError(fmt.Sprintf("DescribeGroups for group %q", group), "", -1, err)
	}
	res, ok := m.(*describegroups.Response)
	if !ok || len(res.Groups) != 1 {
		return "", false, fmt.Errorf("DescribeGroups for group %q: unexpected answer %T", group, m)
	}
	g := res.Groups[0]
	switch code := kafka.Error(g.ErrorCode); {
	case code == 0 && g.GroupState != "Dead":
		return g.GroupState, len(g.Members) > 0, nil
	case code != 0 && code != kafka.GroupIdNotFound:
		return "", false, &BrokerError{Op: "DescribeGroups", Group: group, Partition: -1, Code: code}
	}
	state, found, err := c.listedGroup(ctx, tt, group)
	if err != nil || !found {
		return "Dead", false, err
	}
	return state, state != "Empty" && state != "Dead", nil
}

// fetchCommitted returns the group's committed offsets by topic and partition (OffsetFetch for
// all topics: brokers leave out the topics the principal may not DESCRIBE); partitions without a
// commit (-1) are left out.
func (c *Client) fetchCommitted(ctx context.Context, tt *topicTransport, group string) (map[string]map[int]int64, error) {
	res, err := fetchOffsetsOfGroup(ctx, tt, group) // offsetfetch.go: kafka-go's Client.OffsetFetch is replaced
	if err != nil {
		return nil, tt.dials.requestError(fmt.Sprintf("OffsetFetch for group %q", group), "", -1, err)
	}
	if err := groupError("OffsetFetch", group, res.Error); err != nil {
		return nil, err
	}
	out := map[string]map[int]int64{}
	for topic, partitions := range res.Topics {
		for _, p := range partitions {
			if err := groupError("OffsetFetch", group, p.Error); err != nil {
				var be *BrokerError
				if errors.As(err, &be) {
					be.Topic, be.Partition = topic, p.Partition
				}
				return nil, err
			}
			if p.CommittedOffset < 0 {
				continue
			}
			if out[topic] == nil {
				out[topic] = map[int]int64{}
			}
			out[topic][p.Partition] = p.CommittedOffset
		}
	}
	return out, nil
}

func groupError(op, group string, err error) error {
	if err == nil {
		return nil
	}
	var code kafka.Error
	if errors.As(err, &code) {
		return &BrokerError{Op: op, Group: group, Partition: -1, Code: code}
	}
	return fmt.Errorf("%s for group %q: %w", op, group, err)
}
