package kafkaclient

import (
	"context"
	"fmt"
	"slices"
	"time"
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
	// MaxTimestamp also asks for the record with the largest timestamp (KIP-734; Kafka 3.0+),
	// under the request's isolation level: under read_committed, below the last stable offset.
	// Optional: a leader that does not serve it or refuses it leaves it nil (Unanswered).
	MaxTimestamp bool
	// LastWrite asks what MaxTimestamp does, under read_uncommitted whatever the isolation level:
	// a record in an open transaction is a write too. Not with MaxTimestamp.
	LastWrite bool
	// TieredOffsets also asks for the tiered-storage offsets (KIP-405), of each leader that
	// serves them (EarliestLocal and the others stay nil where it does not, or refuses them:
	// Unanswered).
	TieredOffsets bool
	// HighWatermark also gives the high watermark: Latest under ReadUncommitted; under
	// ReadCommitted a second latest lookup, read_uncommitted, in the same round. The group reads
	// need both ends of the log.
	HighWatermark bool

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
	// HighWatermark is the offset the next record gets, with OffsetsRequest.HighWatermark only
	// (0 without): Latest under read_uncommitted, read apart under read_committed.
	HighWatermark int64
	// TimestampOffset is the first offset whose record timestamp is at or after TimestampMs; nil
	// when no record is that late (the broker answers -1: a consumer would start at Latest).
	TimestampOffset *int64
	// MaxTimestampOffset and MaxTimestamp locate the record with the largest timestamp
	// (ListOffsets timestamp -3); nil when the partition holds no record, when
	// MaxTimestampLocalOnly, and when the leader did not answer it (Unanswered).
	MaxTimestampOffset *int64
	MaxTimestamp       *int64
	// MaxTimestampLocalOnly: with TieredOffsets, the partition has records in remote storage
	// only (EarliestLocal > Earliest), which the broker's max-timestamp lookup does not scan
	// (KAFKA-17552): its answer is dropped.
	MaxTimestampLocalOnly bool

	// With TieredOffsets, the tiered-storage offsets (KIP-405), nil where the leader serves
	// ListOffsets below the version that answers them. EarliestLocal (-4, v8) is the first
	// offset still on the leader's disk, Earliest on a topic without remote storage.
	// LatestTiered (-5, v9, KIP-1005) is the last offset in remote storage and
	// EarliestPendingUpload (-6, v11, KIP-1023) the first not yet there; both nil when the
	// broker answers -1: nothing is in remote storage, or the topic has none.
	EarliestLocal         *int64
	LatestTiered          *int64
	EarliestPendingUpload *int64

	// Unanswered are the optional lookups (the max timestamp, the tiered-storage offsets) that the
	// partition's leader did not answer, each with why: their values are nil. Empty where it
	// answered every lookup asked.
	Unanswered []Unanswered
}

// offsetReads is the room of the ListOffsets reads: what each partition's leader is asked
// (lookups.go), asked of it in rounds shared by the reads that come at once (coalesce.go), and
// the answers settled by partition (this file; topics_offsets.go for whole topics).
type offsetReads struct {
	cluster *clusterView
	rounds  *coalescer
}

func newOffsetReads(cv *clusterView) *offsetReads {
	return &offsetReads{cluster: cv, rounds: newCoalescer(cv.life, cv.goShared, cv.brokers.Get,
		func(op string, l leader, err error) error { return cv.requestError(op, l.address, int(l.id), err) })}
}

// Offsets reads the requested offsets of a topic's partitions within the read's timeout, sorted
// by partition. Its lookups (earliest, latest, and the timestamps asked) join the round of each
// partition leader (coalescer): one ListOffsets request per leader and lookup, shared with the
// reads that wait at the same moment (not one per partition, as kafka-go's Client.ListOffsets
// does). Retriable broker errors are retried with fresh metadata; the others come back at once
// as *TopicNotFoundError, *PartitionOutOfRangeError, *UnreachableError, *BrokerError,
// *UnsupportedError or *TimeoutError.
func (c *Client) Offsets(ctx context.Context, req OffsetsRequest) ([]PartitionOffsets, error) {
	return c.offsets.read(ctx, req)
}

// read is Offsets: the leaders of the partitions asked (retried on fresh metadata), then their
// offsets.
func (ofs *offsetReads) read(ctx context.Context, req OffsetsRequest) ([]PartitionOffsets, error) {
	if req.TimestampMs != nil && *req.TimestampMs < 0 {
		return nil, fmt.Errorf("timestamp %d ms is before the Unix epoch: ListOffsets reads negative "+
			"timestamps as special values (-1 is latest)", *req.TimestampMs)
	}
	ctx, cancel := ofs.cluster.boundRead(ctx)
	defer cancel()

	var out []PartitionOffsets
	err := ofs.cluster.withRetries(ctx, func(notBefore, believe time.Time) error {
		leaders, err := ofs.cluster.leaders(ctx, req.Topic, req.Partitions, notBefore, believe)
		if err != nil {
			return err
		}
		out, err = ofs.listOffsets(ctx, req, leaders)
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

// listOffsets reads the partitions of req.Topic given in leaders (partition to leader), sorted by
// partition.
func (ofs *offsetReads) listOffsets(ctx context.Context, req OffsetsRequest, leaders map[int]leader) ([]PartitionOffsets, error) {
	read := make([]partitionLeader, 0, len(leaders))
	for p, l := range leaders {
		read = append(read, partitionLeader{topicPartition{req.Topic, p}, l})
	}
	res, err := ofs.listTopicsOffsets(ctx, req, read)
	return res[req.Topic], err
}

// listTopicsOffsets reads the partitions of leaders, of every topic, one layer after the other:
// what each leader is asked (planLookups), the leaders' rounds that ask it (coalescer: one
// request per leader and lookup, whatever the topics), and the answers by topic, settled and
// sorted by partition.
func (ofs *offsetReads) listTopicsOffsets(ctx context.Context, req OffsetsRequest, leaders []partitionLeader) (map[string][]PartitionOffsets, error) {
	plan, err := ofs.planLookups(ctx, req, leaders)
	if err != nil {
		return nil, err
	}
	rounds, err := ofs.rounds.read(ctx, plan.asks)
	if err != nil {
		return nil, err
	}
	out, err := collect(plan, rounds)
	if err != nil {
		return nil, err
	}
	return settleAll(req, out)
}

// settleAll settles each partition's answers (settle), in place, and sorts each topic's by
// partition.
func settleAll(req OffsetsRequest, out map[string][]PartitionOffsets) (map[string][]PartitionOffsets, error) {
	for topic, ps := range out {
		topicReq := req
		topicReq.Topic = topic
		for i := range ps {
			if err := settle(topicReq, &ps[i]); err != nil {
				return nil, err
			}
		}
		slices.SortFunc(ps, func(a, b PartitionOffsets) int { return a.Partition - b.Partition })
	}
	return out, nil
}

// settle checks one partition's answers against each other. Read in order, earliest <= every
// record offset < latest unless the broker contradicts itself (say, mid leader change): then ask
// again rather than report it. The max-timestamp lookup ignores the log start offset, so a
// record deleted by DeleteRecords can come back: it is no longer in the partition, so its offset
// is null, and so is its timestamp for MaxTimestamp; for LastWrite the timestamp stays, since the
// deleted record was written then all the same. It also scans local segments only (KAFKA-17552):
// where records lie in remote storage only, its answer is dropped (MaxTimestampLocalOnly).
func settle(req OffsetsRequest, p *PartitionOffsets) error {
	inconsistent := func(what string, v int64) error {
		other := ""
		if what != "" {
			other = fmt.Sprintf(", %s %d", what, v)
		}
		return fmt.Errorf("topic %q partition %d: %w (earliest %d, latest %d%s)",
			req.Topic, p.Partition, errInconsistentOffsets, p.Earliest, p.Latest, other)
	}
	if req.HighWatermark && req.Isolation != ReadCommitted {
		p.HighWatermark = p.Latest
	}
	if req.HighWatermark && p.Latest > p.HighWatermark {
		return inconsistent("high watermark", p.HighWatermark)
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
	if req.MaxTimestamp && p.EarliestLocal != nil && *p.EarliestLocal > p.Earliest {
		p.MaxTimestampOffset, p.MaxTimestamp, p.MaxTimestampLocalOnly = nil, nil, true
	}
	if o := p.MaxTimestampOffset; o != nil {
		if *o >= p.Latest && (!req.LastWrite || req.Isolation == ReadUncommitted) { // read_committed: Latest is the LSO
			return inconsistent("max timestamp offset", *o)
		}
		if *o < p.Earliest { // deleted since
			p.MaxTimestampOffset = nil
			if !req.LastWrite {
				p.MaxTimestamp = nil
			}
		}
	}
	if p.MaxTimestamp != nil && *p.MaxTimestamp < 0 { // -1: a record without a timestamp (before message format v1)
		p.MaxTimestamp = nil
	}
	return nil
}

// errInconsistentOffsets: the broker's answers contradict each other (earliest above latest, a
// record offset outside the two); retried, since a leader change can cause it.
var errInconsistentOffsets error = askAgain("the broker's offsets contradict each other")
