package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/segmentio/kafka-go"
)

// Isolation is ListOffsets' isolation level: which offset counts as "latest".
type Isolation int8

const (
	// ReadUncommitted: latest is the high watermark, the offset the next record gets.
	ReadUncommitted Isolation = 0
	// ReadCommitted: latest is the last stable offset, the first offset of the oldest open
	// transaction (the high watermark when none is open).
	ReadCommitted Isolation = 1
)

// OffsetsRequest says which partitions of one topic to read, and what.
type OffsetsRequest struct {
	Topic string
	// Partitions to read; nil reads every partition of the topic.
	Partitions []int
	Isolation  Isolation
	// TimestampMs, when set, also asks for the first offset whose record timestamp is at or after
	// it (milliseconds since the Unix epoch, 0 or more: negative values are ListOffsets' special
	// timestamps and are refused).
	TimestampMs *int64
	// MaxTimestamp also asks for the record with the largest timestamp (KIP-734; Kafka 3.0+).
	MaxTimestamp bool

	latestOnly bool // consumer-group lag needs only Latest: skip the earliest lookup
}

// PartitionOffsets is what one partition answered.
type PartitionOffsets struct {
	Partition int
	// Earliest is the log start offset (ListOffsets timestamp -2): the first offset still in the
	// log. It moves with retention and DeleteRecords, not with compaction.
	Earliest int64
	// Latest is the high watermark (read_uncommitted) or the last stable offset (read_committed),
	// from ListOffsets timestamp -1. An empty partition has Earliest == Latest.
	Latest int64
	// TimestampOffset is the first offset whose record timestamp is at or after TimestampMs; nil
	// when no record is that late (the broker answers -1: a consumer would start at Latest).
	TimestampOffset *int64
	// MaxTimestampOffset and MaxTimestamp locate the record with the largest timestamp
	// (ListOffsets timestamp -3); nil when the partition holds no record.
	MaxTimestampOffset *int64
	MaxTimestamp       *int64
}

// Offsets reads the requested offsets of a topic's partitions within the Client's timeout, sorted
// by partition. It sends one ListOffsets request per partition leader and per timestamp asked
// (not one per partition, as kafka-go's Client.ListOffsets does). Retriable broker errors are
// retried with fresh metadata; the others come back at once as *TopicNotFoundError,
// *PartitionOutOfRangeError, *UnreachableError, *BrokerError, *UnsupportedError or *TimeoutError.
func (c *Client) Offsets(ctx context.Context, req OffsetsRequest) ([]PartitionOffsets, error) {
	if req.TimestampMs != nil && *req.TimestampMs < 0 {
		return nil, fmt.Errorf("timestamp %d ms is before the Unix epoch: ListOffsets reads negative "+
			"timestamps as special values (-1 is latest)", *req.TimestampMs)
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	tt := c.acquire(req.Topic)
	defer c.release(tt)

	var out []PartitionOffsets
	err := c.withRetries(ctx, tt, func(fresh bool) error {
		leaders, err := c.leaders(ctx, tt, req.Topic, req.Partitions, fresh)
		if err != nil {
			return err
		}
		out, err = listOffsets(ctx, tt, req, leaders)
		return err
	})
	return out, err
}

// PartitionOffsets reads one partition's earliest and latest offsets (read_uncommitted).
func (c *Client) PartitionOffsets(ctx context.Context, topic string, partition int) (PartitionOffsets, error) {
	res, err := c.Offsets(ctx, OffsetsRequest{Topic: topic, Partitions: []int{partition}})
	if err != nil {
		return PartitionOffsets{}, err
	}
	return res[0], nil
}

// leaders asks the transport's metadata for the topic and returns the leader of each requested
// partition (every partition when partitions is nil), by partition. A "no" from a cached layout
// is retried once fresh before it is believed.
func (c *Client) leaders(ctx context.Context, tt *topicTransport, topic string, partitions []int, fresh bool) (map[int]kafka.Broker, error) {
	md, err := c.metadata(ctx, tt, topic)
	if err != nil {
		return nil, err
	}
	t := findTopic(md, topic)
	var code kafka.Error
	switch {
	case t == nil || errors.As(t.Error, &code) && code == kafka.UnknownTopicOrPartition:
		if !fresh {
			return nil, errStaleMetadata
		}
		return nil, &TopicNotFoundError{Topic: topic}
	case t.Error != nil:
		return nil, topicError(t.Error, topic)
	}
	byID := make(map[int]kafka.Partition, len(t.Partitions))
	for _, p := range t.Partitions {
		byID[p.ID] = p
	}
	if partitions == nil {
		for id := range byID {
			partitions = append(partitions, id)
		}
	}
	out := make(map[int]kafka.Broker, len(partitions))
	for _, id := range partitions {
		p, ok := byID[id]
		if !ok {
			if !fresh {
				return nil, errStaleMetadata
			}
			return nil, &PartitionOutOfRangeError{Topic: topic, Partition: id, Partitions: len(t.Partitions)}
		}
		if p.Leader.Host == "" { // kafka-go leaves the leader empty when Metadata names none (-1)
			return nil, &BrokerError{Op: "Metadata", Topic: topic, Partition: id, Code: noLeaderCode(p.Error), NoLeader: true}
		}
		out[id] = p.Leader
	}
	return out, nil
}

// noLeaderCode is the error Metadata gave a partition without a leader; LEADER_NOT_AVAILABLE when
// it gave none.
func noLeaderCode(err error) kafka.Error {
	var code kafka.Error
	if errors.As(err, &code) && code != 0 {
		return code
	}
	return kafka.LeaderNotAvailable
}

// errStaleMetadata asks withRetries for one more attempt on fresh metadata.
var errStaleMetadata = errors.New("cached metadata lacks the topic or partition; asking again with fresh metadata")

func findTopic(md *kafka.MetadataResponse, topic string) *kafka.Topic {
	for i := range md.Topics {
		if md.Topics[i].Name == topic {
			return &md.Topics[i]
		}
	}
	return nil
}

func topicError(err error, topic string) error {
	var code kafka.Error
	if errors.As(err, &code) {
		return &BrokerError{Op: "Metadata", Topic: topic, Partition: -1, Code: code}
	}
	return fmt.Errorf("metadata for topic %q: %w", topic, err)
}

// lookup is one ListOffsets timestamp to ask every partition for.
type lookup struct {
	timestamp int64
	op        string // for errors: what was asked
	set       func(p *PartitionOffsets, offset, timestamp int64)
}

func lookups(req OffsetsRequest) []lookup {
	var out []lookup
	if !req.latestOnly {
		out = append(out, lookup{timestampEarliest, "ListOffsets (earliest)", func(p *PartitionOffsets, o, _ int64) { p.Earliest = o }})
	}
	if req.TimestampMs != nil {
		out = append(out, lookup{*req.TimestampMs, "ListOffsets (by timestamp)", func(p *PartitionOffsets, o, _ int64) {
			if o >= 0 { // -1: no record at or after the timestamp
				p.TimestampOffset = &o
			}
		}})
	}
	if req.MaxTimestamp {
		out = append(out, lookup{timestampMax, "ListOffsets (max timestamp)", func(p *PartitionOffsets, o, ts int64) {
			if o >= 0 { // -1: the partition holds no record (or, read_committed, none below the LSO)
				p.MaxTimestampOffset, p.MaxTimestamp = &o, &ts
			}
		}})
	}
	return append(out, lookup{timestampLatest, "ListOffsets (latest)", func(p *PartitionOffsets, o, _ int64) { p.Latest = o }})
}

// topicPartition names one partition of one topic.
type topicPartition struct {
	topic     string
	partition int
}

// listOffsets reads the partitions of req.Topic given in leaders (partition to leader), sorted by
// partition.
func listOffsets(ctx context.Context, tt *topicTransport, req OffsetsRequest, leaders map[int]kafka.Broker) ([]PartitionOffsets, error) {
	byTP := make(map[topicPartition]kafka.Broker, len(leaders))
	for p, leader := range leaders {
		byTP[topicPartition{req.Topic, p}] = leader
	}
	res, err := listTopicsOffsets(ctx, tt, req, byTP)
	return res[req.Topic], err
}

// listTopicsOffsets sends, for each lookup in turn, one request per leader holding all of that
// leader's partitions, of every topic (a partition may appear only once per request), and
// assembles the answers by topic, sorted by partition: the number of requests grows with the
// leaders, not with the topics. Lookups go one after the other, the earliest offset first and the
// latest last: offsets only move forward, so every answer read in between lies between those two.
func listTopicsOffsets(ctx context.Context, tt *topicTransport, req OffsetsRequest, leaders map[topicPartition]kafka.Broker) (map[string][]PartitionOffsets, error) {
	byLeader := map[kafka.Broker][]topicPartition{}
	out := make(map[topicPartition]*PartitionOffsets, len(leaders))
	for tp, leader := range leaders {
		byLeader[leader] = append(byLeader[leader], tp)
		out[tp] = &PartitionOffsets{Partition: tp.partition}
	}
	for _, l := range lookups(req) {
		if l.timestamp == timestampMax {
			brokers := make(map[kafka.Broker][]int32, len(byLeader))
			for b := range byLeader {
				brokers[b] = nil
			}
			if err := tt.dials.supportsMaxTimestamp(brokers); err != nil {
				return nil, err
			}
		}
		if err := lookupAll(ctx, tt, req, l, byLeader, out); err != nil {
			return nil, err
		}
	}
	res := map[string][]PartitionOffsets{}
	for tp, p := range out {
		topicReq := req
		topicReq.Topic = tp.topic
		if err := settle(topicReq, p); err != nil {
			return nil, err
		}
		res[tp.topic] = append(res[tp.topic], *p)
	}
	for _, ps := range res {
		slices.SortFunc(ps, func(a, b PartitionOffsets) int { return a.Partition - b.Partition })
	}
	return res, nil
}

// settle checks one partition's answers against each other. Read in order, earliest <= every
// record offset < latest unless the broker contradicts itself (say, mid leader change): then ask
// again rather than report it. The max-timestamp lookup ignores the log start offset, so a
// record deleted by DeleteRecords can come back: it is no longer in the partition, so null.
func settle(req OffsetsRequest, p *PartitionOffsets) error {
	inconsistent := func(what string, v int64) error {
		other := ""
		if what != "" {
			other = fmt.Sprintf(", %s %d", what, v)
		}
		return fmt.Errorf("topic %q partition %d: %w (earliest %d, latest %d%s)",
			req.Topic, p.Partition, errInconsistentOffsets, p.Earliest, p.Latest, other)
	}
	if req.latestOnly {
		return nil
	}
	if req.Isolation == ReadUncommitted && p.Earliest > p.Latest {
		return inconsistent("", 0)
	}
	if o := p.TimestampOffset; o != nil && (*o < p.Earliest || *o >= p.Latest) {
		return inconsistent("offset at the timestamp", *o)
	}
	if o := p.MaxTimestampOffset; o != nil {
		switch {
		case *o >= p.Latest:
			return inconsistent("max timestamp offset", *o)
		case *o < p.Earliest:
			p.MaxTimestampOffset, p.MaxTimestamp = nil, nil
		case *p.MaxTimestamp < 0: // -1: a record without a timestamp (before message format v1)
			p.MaxTimestamp = nil
		}
	}
	return nil
}

// lookupAll sends one lookup to every leader at once and records the answers in out.
func lookupAll(ctx context.Context, tt *topicTransport, req OffsetsRequest, l lookup, byLeader map[kafka.Broker][]topicPartition, out map[topicPartition]*PartitionOffsets) error {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	for leader, partitions := range byLeader {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers, err := listOffsetsOnce(ctx, tt, req.Isolation, l, leader, partitions)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			for tp, a := range answers {
				l.set(out[tp], a.Offset, a.Timestamp)
			}
		}()
	}
	wg.Wait()
	return firstError(errs)
}

// firstError picks the error to report: a non-retriable one before a retriable one, so that a
// lasting failure is not hidden behind a passing one, then the lowest partition.
func firstError(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	slices.SortStableFunc(errs, func(a, b error) int {
		ra, rb := isRetriable(a), isRetriable(b)
		if ra != rb {
			if ra {
				return 1
			}
			return -1
		}
		return partitionOf(a) - partitionOf(b)
	})
	return errs[0]
}

func partitionOf(err error) int {
	var be *BrokerError
	if errors.As(err, &be) {
		return be.Partition
	}
	return -1
}

// listOffsetsOnce sends one ListOffsets request for partitions (all led by one broker, of one or
// more topics) and checks that every partition answered without an error. An entry with an error
// carries placeholder offsets (-1): never use them.
func listOffsetsOnce(ctx context.Context, tt *topicTransport, isolation Isolation, l lookup, leader kafka.Broker, partitions []topicPartition) (map[topicPartition]listOffsetsResponsePartition, error) {
	m, err := tt.transport.RoundTrip(ctx, tt.addr(), &listOffsetsRequest{
		ReplicaID:      -1,
		IsolationLevel: int8(isolation),
		Topics:         listOffsetsTopics(partitions, l.timestamp),
	})
	about := describePartitions(partitions)
	if err != nil {
		return nil, tt.dials.requestError(l.op+" for "+about, brokerAddress(leader), leader.ID, err)
	}
	res, ok := m.(*listOffsetsResponse)
	if !ok {
		return nil, fmt.Errorf("%s for %s: unexpected response type %T", l.op, about, m)
	}
	answered := make(map[topicPartition]listOffsetsResponsePartition, len(partitions))
	for _, t := range res.Topics {
		for _, p := range t.Partitions {
			answered[topicPartition{t.Topic, int(p.Partition)}] = p
		}
	}
	out := make(map[topicPartition]listOffsetsResponsePartition, len(partitions))
	for _, tp := range partitions {
		a, ok := answered[tp]
		switch {
		case !ok:
			return nil, fmt.Errorf("%s for topic %q partition %d: the broker's answer has no entry for the partition",
				l.op, tp.topic, tp.partition)
		case a.ErrorCode == int16(kafka.UnsupportedVersion) && l.timestamp == timestampMax:
			return nil, &UnsupportedError{What: "the max timestamp offset (ListOffsets v7, KIP-734)", Since: "3.0"}
		case a.ErrorCode != 0:
			return nil, &BrokerError{Op: l.op, Topic: tp.topic, Partition: tp.partition, Code: kafka.Error(a.ErrorCode),
				Broker: describeBroker(brokerAddress(leader), leader.ID)}
		case a.Offset < 0 && l.timestamp < 0 && l.timestamp != timestampMax:
			return nil, fmt.Errorf("%s for topic %q partition %d: broker answered offset %d without an error",
				l.op, tp.topic, tp.partition, a.Offset)
		}
		out[tp] = a
	}
	return out, nil
}

// listOffsetsTopics groups partitions by topic, in order of name and partition, each asked for
// timestamp.
func listOffsetsTopics(partitions []topicPartition, timestamp int64) []listOffsetsRequestTopic {
	sorted := slices.Clone(partitions)
	slices.SortFunc(sorted, func(a, b topicPartition) int {
		if c := strings.Compare(a.topic, b.topic); c != 0 {
			return c
		}
		return a.partition - b.partition
	})
	var topics []listOffsetsRequestTopic
	for _, tp := range sorted {
		if len(topics) == 0 || topics[len(topics)-1].Topic != tp.topic {
			topics = append(topics, listOffsetsRequestTopic{Topic: tp.topic})
		}
		t := &topics[len(topics)-1]
		t.Partitions = append(t.Partitions, listOffsetsRequestPartition{
			Partition: int32(tp.partition), CurrentLeaderEpoch: -1, Timestamp: timestamp,
		})
	}
	return topics
}

// describePartitions names partitions for an error: `topic "a" partitions 0, 1` (all of one
// topic), or the first few topics.
func describePartitions(partitions []topicPartition) string {
	var names []string
	for _, tp := range partitions {
		names = append(names, tp.topic)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 1 {
		ids := make([]int32, len(partitions))
		for i, tp := range partitions {
			ids[i] = int32(tp.partition)
		}
		slices.Sort(ids)
		return fmt.Sprintf("topic %q partition%s %s", names[0], plural(len(ids)), joinInts(ids))
	}
	const shown = 3
	quoted := make([]string, 0, shown)
	for _, n := range names[:min(shown, len(names))] {
		quoted = append(quoted, fmt.Sprintf("%q", n))
	}
	if len(names) > shown {
		return fmt.Sprintf("topics %s and %d more", strings.Join(quoted, ", "), len(names)-shown)
	}
	return "topics " + strings.Join(quoted, ", ")
}

// errInconsistentOffsets: the broker's answers contradict each other (earliest above latest, a
// record offset outside the two); retried, since a leader change can cause it.
var errInconsistentOffsets = errors.New("the broker's offsets contradict each other")
