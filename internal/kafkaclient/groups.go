package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol/describegroups"
	"github.com/segmentio/kafka-go/protocol/findcoordinator"
	"github.com/segmentio/kafka-go/protocol/offsetfetch"
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

	var (
		out       GroupOffsets
		committed map[string]map[int]int64
		live      bool
	)
	err := c.withRetries(ctx, func(notBefore, believe time.Time) error {
		// FindCoordinator makes the broker create __consumer_offsets if it is missing: a cluster
		// where no group ever existed is answered from Metadata alone.
		if err := c.offsetsTopicExists(ctx, notBefore, believe); err != nil {
			return err
		}
		coordinator, err := c.findCoordinator(ctx, req.GroupID)
		if err != nil {
			return err
		}
		if out.State, live, err = c.describeGroup(ctx, coordinator, req.GroupID); err != nil {
			return err
		}
		committed, err = c.fetchCommitted(ctx, coordinator, req.GroupID)
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

// offsetsTopicExists checks, from the metadata of __consumer_offsets, that it exists; a "no"
// from a cached layout is asked again fresh before it is believed.
func (c *Client) offsetsTopicExists(ctx context.Context, notBefore, believe time.Time) error {
	md, err := c.topicMetadata(ctx, offsetsTopic, notBefore)
	if err != nil {
		return err
	}
	if md.code == kafka.UnknownTopicOrPartition {
		if md.requested.Before(believe) {
			return errStaleMetadata
		}
		return errNoOffsetsTopic
	}
	return nil
}

// findCoordinator asks the seed which broker coordinates the group; asked once per attempt, since
// NOT_COORDINATOR and a refused connection mean the coordinator moved.
func (c *Client) findCoordinator(ctx context.Context, group string) (leader, error) {
	op := fmt.Sprintf("FindCoordinator for group %q", group)
	addr, err := c.seedAddr(ctx)
	if err != nil {
		return leader{}, &ConnectionError{Op: "connecting to a bootstrap server", Problem: c.bootstrapProblems(), Err: err}
	}
	m, err := c.roundTrip(ctx, addr, &findcoordinator.Request{Key: group})
	if err != nil {
		c.contacts.dropSeed(addr)
		return leader{}, c.dials.requestError(op, addr, -1, err)
	}
	fc, ok := m.(*findcoordinator.Response)
	if !ok {
		return leader{}, fmt.Errorf("%s: unexpected answer %T", op, m)
	}
	if fc.ErrorCode != 0 {
		return leader{}, &BrokerError{Op: "FindCoordinator", Group: group, Partition: -1, Code: kafka.Error(fc.ErrorCode)}
	}
	return leader{id: fc.NodeID, address: net.JoinHostPort(fc.Host, strconv.Itoa(int(fc.Port)))}, nil
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
func (c *Client) describeGroup(ctx context.Context, coordinator leader, group string) (string, bool, error) {
	m, err := c.roundTrip(ctx, coordinator.address, &describegroups.Request{Groups: []string{group}})
	if err != nil {
		return "", false, c.dials.requestError(fmt.Sprintf("DescribeGroups for group %q", group),
			coordinator.address, int(coordinator.id), err)
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
	state, found, err := c.listedGroup(ctx, coordinator, group)
	if err != nil || !found {
		return "Dead", false, err
	}
	return state, state != "Empty" && state != "Dead", nil
}

// fetchCommitted returns the group's committed offsets by topic and partition (OffsetFetch for
// all topics: brokers leave out the topics the principal may not DESCRIBE); partitions without a
// commit (-1) are left out.
func (c *Client) fetchCommitted(ctx context.Context, coordinator leader, group string) (map[string]map[int]int64, error) {
	// Topics nil (null on the wire, OffsetFetch v2+): every topic the group committed on.
	m, err := c.roundTrip(ctx, coordinator.address, &offsetfetch.Request{GroupID: group})
	if err != nil {
		return nil, c.dials.requestError(fmt.Sprintf("OffsetFetch for group %q", group),
			coordinator.address, int(coordinator.id), err)
	}
	res, ok := m.(*offsetfetch.Response)
	if !ok {
		return nil, fmt.Errorf("OffsetFetch for group %q: unexpected answer %T", group, m)
	}
	if res.ErrorCode != 0 {
		return nil, &BrokerError{Op: "OffsetFetch", Group: group, Partition: -1, Code: kafka.Error(res.ErrorCode)}
	}
	out := map[string]map[int]int64{}
	for _, t := range res.Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode != 0 {
				return nil, &BrokerError{Op: "OffsetFetch", Group: group, Topic: t.Name, Partition: int(p.PartitionIndex),
					Code: kafka.Error(p.ErrorCode)}
			}
			if p.CommittedOffset < 0 {
				continue
			}
			if out[t.Name] == nil {
				out[t.Name] = map[int]int64{}
			}
			out[t.Name][int(p.PartitionIndex)] = p.CommittedOffset
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
