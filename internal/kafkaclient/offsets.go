package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/segmentio/kafka-go/protocol"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
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
// by partition. Its lookups (earliest, latest, and the timestamps asked) join the round of each
// partition leader (coalesce.go): one ListOffsets request per leader and lookup, shared with the
// reads that wait at the same moment (not one per partition, as kafka-go's Client.ListOffsets
// does). Retriable broker errors are retried with fresh metadata; the others come back at once
// as *TopicNotFoundError, *PartitionOutOfRangeError, *UnreachableError, *BrokerError,
// *UnsupportedError or *TimeoutError.
func (c *Client) Offsets(ctx context.Context, req OffsetsRequest) ([]PartitionOffsets, error) {
	if req.TimestampMs != nil && *req.TimestampMs < 0 {
		return nil, fmt.Errorf("timestamp %d ms is before the Unix epoch: ListOffsets reads negative "+
			"timestamps as special values (-1 is latest)", *req.TimestampMs)
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()

	var out []PartitionOffsets
	err := c.withRetries(ctx, func(notBefore, believe time.Time) error {
		leaders, err := c.leaders(ctx, req.Topic, req.Partitions, notBefore, believe)
		if err != nil {
			return err
		}
		out, err = c.listOffsets(ctx, req, leaders)
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

// lookup is one ListOffsets timestamp to ask every partition for.
type lookup struct {
	timestamp int64
	op        string // for errors: what was asked
	set       func(p *PartitionOffsets, offset, timestamp int64)
}

func lookups(req OffsetsRequest) []lookup {
	var out []lookup
	if !req.latestOnly {
		out = append(out, lookup{wire.TimestampEarliest, "ListOffsets (earliest)", func(p *PartitionOffsets, o, _ int64) { p.Earliest = o }})
	}
	if req.TimestampMs != nil {
		out = append(out, lookup{*req.TimestampMs, "ListOffsets (by timestamp)", func(p *PartitionOffsets, o, _ int64) {
			if o >= 0 { // -1: no record at or after the timestamp
				p.TimestampOffset = &o
			}
		}})
	}
	if req.MaxTimestamp {
		out = append(out, lookup{wire.TimestampMax, "ListOffsets (max timestamp)", func(p *PartitionOffsets, o, ts int64) {
			if o >= 0 { // -1: the partition holds no record (or, read_committed, none below the LSO)
				p.MaxTimestampOffset, p.MaxTimestamp = &o, &ts
			}
		}})
	}
	return append(out, lookup{wire.TimestampLatest, "ListOffsets (latest)", func(p *PartitionOffsets, o, _ int64) { p.Latest = o }})
}

// topicPartition names one partition of one topic.
type topicPartition struct {
	topic     string
	partition int
}

// listOffsets reads the partitions of req.Topic given in leaders (partition to leader), sorted by
// partition.
func (c *Client) listOffsets(ctx context.Context, req OffsetsRequest, leaders map[int]leader) ([]PartitionOffsets, error) {
	byTP := make(map[topicPartition]leader, len(leaders))
	for p, l := range leaders {
		byTP[topicPartition{req.Topic, p}] = l
	}
	res, err := c.listTopicsOffsets(ctx, req, byTP)
	return res[req.Topic], err
}

// listTopicsOffsets asks every lookup of req of each partition's leader, of every topic, through
// the leaders' rounds (coalesce.go: one request per leader and lookup, whatever the topics), and
// assembles the answers by topic, sorted by partition.
func (c *Client) listTopicsOffsets(ctx context.Context, req OffsetsRequest, leaders map[topicPartition]leader) (map[string][]PartitionOffsets, error) {
	byLeader := map[leader][]topicPartition{}
	for tp, l := range leaders {
		byLeader[l] = append(byLeader[l], tp)
	}
	ls := lookups(req)
	keys := make([]lookupKey, len(ls))
	for i, l := range ls {
		keys[i] = lookupKey{isolation: req.Isolation, timestamp: l.timestamp}
	}
	if req.MaxTimestamp {
		for l := range byLeader {
			if err := c.supportsMaxTimestamp(ctx, l); err != nil {
				return nil, err
			}
		}
	}
	rounds := make(map[leader]*round, len(byLeader))
	for l, tps := range byLeader {
		rounds[l] = c.enqueue(ctx, l, tps, keys)
	}
	out := make(map[topicPartition]*PartitionOffsets, len(leaders))
	var errs []error
	for l, r := range rounds {
		select {
		case <-r.done:
		case <-ctx.Done():
			return nil, c.dials.requestError("ListOffsets for "+describePartitions(byLeader[l]), l.address, int(l.id), ctx.Err())
		}
		for _, tp := range byLeader[l] {
			po := &PartitionOffsets{Partition: tp.partition}
			out[tp] = po
			for i, lk := range ls {
				a := r.asks[keys[i]][askKey{tp.topic, int32(tp.partition)}]
				if a.err != nil {
					errs = append(errs, a.err)
					continue
				}
				lk.set(po, a.offset, a.timestamp)
			}
		}
	}
	if err := firstError(errs); err != nil {
		return nil, err
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

// supportsMaxTimestamp refuses a max-timestamp lookup when the leader serves ListOffsets below
// v7: brokers before Kafka 3.0 read timestamp -3 as an ordinary time and answer the first
// record, not an error. The leader's connection says (its ApiVersions answer).
func (c *Client) supportsMaxTimestamp(ctx context.Context, l leader) error {
	conn, err := c.brokers.get(ctx, l.address)
	if err != nil {
		return c.dials.requestError("ListOffsets (max timestamp)", l.address, int(l.id), err)
	}
	if v, _ := conn.version(protocol.ListOffsets); v < 7 {
		return &UnsupportedError{
			What:  fmt.Sprintf("the max timestamp offset (ListOffsets v7, KIP-734; broker %s serves up to v%d)", l.address, v),
			Since: "3.0",
		}
	}
	return nil
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

// errInconsistentOffsets: the broker's answers contradict each other (earliest above latest, a
// record offset outside the two); retried, since a leader change can cause it.
var errInconsistentOffsets = errors.New("the broker's offsets contradict each other")
