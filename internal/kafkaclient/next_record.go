package kafkaclient

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// The next record a group reads, found with Fetch requests as a consumer that is no member of
// the group: replica id -1, no fetch session, no group; it joins nothing and commits nothing.
// Only a record's timestamp is wanted, so a Fetch here asks for little and never waits (MinBytes
// 0, MaxWaitTime 0).
//
// A read sends one Fetch per leader with every partition it wants of that leader, shared with
// the reads that run at the same time (fetch_batches.go); a partition
// whose answer ended before a record (its data held only control batches, aborted transactions
// or a partial batch, or the response was full) is asked again from where its answer ended, with
// as many bytes as its next batch needs, in the next round. A broker returns at least one whole
// batch for the first partition of a response (KIP-74), so every round settles or advances at
// least one partition per leader.

// Byte limits of one Fetch: fetchPartitionBytes per partition is a few record batches of a
// common producer (batch.size 16 KiB); fetchResponseBytes bounds what one answer holds in memory,
// whatever the number of partitions; a batch larger than that goes first in its request, where
// the broker returns it whole.
const (
	fetchPartitionBytes = 64 << 10
	fetchResponseBytes  = 8 << 20
)

// FetchOp names the Fetch of a next-record read in errors (BrokerError.Op): a principal without
// READ on the topic is refused it, while every other read needs DESCRIBE only.
const FetchOp = "Fetch (the next record's timestamp)"

// nextAsk is one partition's search: from where, and how many bytes its next batch needs.
type nextAsk struct {
	from  int64
	bytes int32
}

// timeLags is the room of the Fetch reads: the next record at or after an offset, and so a
// group's time lag (time_lag.go). Concurrent reads share one Fetch per leader and isolation level
// (fetch_batches.go).
type timeLags struct {
	cluster *clusterView
	offsets *offsetReads // where a search fell out of the log: its new start
	fetches *fetchBatches
}

func newTimeLags(cv *clusterView, offsets *offsetReads) *timeLags {
	tl := &timeLags{cluster: cv, offsets: offsets}
	tl.fetches = newFetchBatches(cv.life, cv.goShared, tl.fetch)
	return tl
}

// nextRecords finds the next record at or after from of every partition in asks, under
// isolation; a partition whose answer is nil has none below the log end (its group is caught up
// there). Retriable answers are retried with fresh metadata, keeping what earlier attempts found.
func (tl *timeLags) nextRecords(ctx context.Context, isolation Isolation, asks map[topicPartition]int64) (map[topicPartition]*NextRecord, error) {
	found := make(map[topicPartition]*NextRecord, len(asks))
	pending := make(map[topicPartition]*nextAsk, len(asks))
	for tp, from := range asks {
		pending[tp] = &nextAsk{from: from, bytes: fetchPartitionBytes}
	}
	err := tl.cluster.withRetries(ctx, func(notBefore, believe time.Time) error {
		for len(pending) > 0 {
			byLeader, err := tl.cluster.leadersOfPartitions(ctx, pending, notBefore, believe)
			if err != nil {
				return err
			}
			progressed, err := tl.fetchRound(ctx, isolation, byLeader, pending, found)
			if err != nil {
				return err
			}
			if !progressed {
				return errNoFetchProgress
			}
		}
		return nil
	})
	return found, err
}

// errNoFetchProgress: a round of Fetch answers moved no partition on (a broker that answered no
// data where its offsets say there is some, as during a leader change); asked again after a
// backoff, within the read's timeout.
var errNoFetchProgress error = askAgain("the Fetch answers held no record where the log has some")

// leadersOfPartitions groups the pending partitions by leader, in the order of a request: by
// topic, then partition.
func (cv *clusterView) leadersOfPartitions(ctx context.Context, pending map[topicPartition]*nextAsk, notBefore, believe time.Time) (map[leader][]topicPartition, error) {
	byTopic := map[string][]int{}
	for tp := range pending {
		byTopic[tp.topic] = append(byTopic[tp.topic], tp.partition)
	}
	byLeader := map[leader][]topicPartition{}
	for topic, partitions := range byTopic {
		leaders, err := cv.leaders(ctx, topic, partitions, notBefore, believe)
		if err != nil {
			return nil, err
		}
		for p, l := range leaders {
			byLeader[l] = append(byLeader[l], topicPartition{topic, p})
		}
	}
	for _, tps := range byLeader {
		slices.SortFunc(tps, func(a, b topicPartition) int {
			return cmp.Or(cmp.Compare(a.topic, b.topic), cmp.Compare(a.partition, b.partition))
		})
	}
	return byLeader, nil
}

// fetchRound asks every leader at once (each through its Fetch batches, fetch_batches.go) and
// applies the answers; progressed is whether any partition settled or moved on.
func (tl *timeLags) fetchRound(ctx context.Context, isolation Isolation, byLeader map[leader][]topicPartition,
	pending map[topicPartition]*nextAsk, found map[topicPartition]*NextRecord,
) (progressed bool, _ error) {
	type answer struct {
		l   leader
		res *kmsg.FetchResponse
		err error
	}
	answers := make(chan answer, len(byLeader))
	var wg sync.WaitGroup
	for l, tps := range byLeader {
		asks := make(map[topicPartition]*nextAsk, len(tps))
		for _, tp := range tps {
			asks[tp] = pending[tp]
		}
		wg.Go(func() {
			res, err := tl.fetches.fetch(ctx, l, isolation, asks)
			answers <- answer{l, res, err}
		})
	}
	wg.Wait()
	close(answers)
	var errs []error
	for a := range answers {
		if a.err != nil {
			errs = append(errs, a.err)
			continue
		}
		moved, err := tl.applyFetch(ctx, isolation, a.l, a.res, pending, found)
		progressed = progressed || moved
		if err != nil {
			errs = append(errs, err)
		}
	}
	return progressed, firstError(errs)
}

// fetch sends one Fetch to leader l: the round trip of the Fetch batches.
func (tl *timeLags) fetch(ctx context.Context, l leader, req *kmsg.FetchRequest) (*kmsg.FetchResponse, error) {
	m, err := tl.cluster.brokers.RoundTrip(ctx, l.address, req)
	if err != nil {
		return nil, tl.cluster.requestError(FetchOp+" for "+describeFetch(req), l.address, int(l.id), err)
	}
	res, err := answerAs[*kmsg.FetchResponse](FetchOp, m)
	if err != nil {
		return nil, err
	}
	if res.ErrorCode != 0 {
		return nil, &BrokerError{Op: FetchOp, Topic: req.Topics[0].Topic, Partition: -1,
			Broker: describeBroker(l.address, int(l.id)), Code: ErrorCode(res.ErrorCode)}
	}
	return res, nil
}

// describeFetch names a request's partitions for an error.
func describeFetch(req *kmsg.FetchRequest) string {
	var tps []topicPartition
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			tps = append(tps, topicPartition{t.Topic, int(p.Partition)})
		}
	}
	return describePartitions(tps)
}

// applyFetch takes one leader's answer: a partition whose record is found, or whose search
// reached the log end, settles; the others move on (from, bytes) and stay pending.
func (tl *timeLags) applyFetch(ctx context.Context, isolation Isolation, l leader, res *kmsg.FetchResponse,
	pending map[topicPartition]*nextAsk, found map[topicPartition]*NextRecord,
) (progressed bool, _ error) {
	var errs []error
	for _, t := range res.Topics {
		for _, p := range t.Partitions {
			tp := topicPartition{t.Topic, int(p.Partition)}
			ask := pending[tp]
			if ask == nil {
				continue // not asked, or answered twice: ignore
			}
			moved, err := tl.applyPartition(ctx, isolation, l, tp, p, ask)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if moved.settled {
				found[tp] = moved.next
				delete(pending, tp)
			}
			progressed = progressed || moved.settled || moved.advanced
		}
	}
	return progressed, firstError(errs)
}

// aborted is p's aborted transactions as wire.NextRecordAt takes them.
func aborted(p kmsg.FetchResponseTopicPartition) []wire.AbortedTxn {
	out := make([]wire.AbortedTxn, len(p.AbortedTransactions))
	for i, a := range p.AbortedTransactions {
		out[i] = wire.AbortedTxn{ProducerID: a.ProducerID, FirstOffset: a.FirstOffset}
	}
	return out
}

// partitionStep is what one partition's answer did to its search.
type partitionStep struct {
	settled  bool
	next     *NextRecord // when settled: the record, or nil for none below the log end
	advanced bool        // from or bytes moved on
}

// applyPartition takes one partition's answer.
func (tl *timeLags) applyPartition(ctx context.Context, isolation Isolation, l leader, tp topicPartition,
	p kmsg.FetchResponseTopicPartition, ask *nextAsk,
) (partitionStep, error) {
	switch code := kafka.Error(p.ErrorCode); {
	case code == kafka.OffsetOutOfRange:
		return tl.restartAtLogStart(ctx, isolation, tp, ask)
	case code != 0:
		return partitionStep{}, &BrokerError{Op: FetchOp, Topic: tp.topic, Partition: tp.partition,
			Broker: describeBroker(l.address, int(l.id)), Code: ErrorCode(code)}
	}
	end := p.HighWatermark
	if isolation == ReadCommitted {
		end = p.LastStableOffset
	}
	scan, err := wire.NextRecordAt(p.RecordBatches, ask.from, isolation == ReadCommitted, aborted(p))
	if err != nil {
		return partitionStep{}, fmt.Errorf("%s for topic %q partition %d: broker %s sent records that cannot be read: %w",
			FetchOp, tp.topic, tp.partition, describeBroker(l.address, int(l.id)), err)
	}
	upTo := int64(math.MaxInt64)
	if scan.Found {
		upTo = scan.Record.Offset
	}
	if last := wire.LastOffset(p.RecordBatches, upTo); last >= p.HighWatermark { // it counts something else than records
		return partitionStep{}, &ImpossibleAnswerError{Op: fmt.Sprintf("%s for topic %q partition %d", FetchOp, tp.topic, tp.partition),
			Broker: describeBroker(l.address, int(l.id)),
			What:   fmt.Sprintf("records up to offset %d with a high watermark of %d", last, p.HighWatermark),
			Kafka:  "a Fetch returns records below the high watermark it answers with, the offset the next record gets"}
	}
	if ask.from >= end {
		return partitionStep{settled: true}, nil // nothing to read below the log end: caught up
	}
	switch {
	case scan.Found && scan.Record.Offset < end:
		r := scan.Record
		return partitionStep{settled: true, next: &NextRecord{Offset: r.Offset, TimestampMs: r.Timestamp, LogAppendTime: r.LogAppend}}, nil
	case scan.Found, scan.Next >= end:
		return partitionStep{settled: true}, nil // only control records or aborted data before the end
	case scan.NeedBytes > ask.bytes:
		ask.bytes = scan.NeedBytes
		return partitionStep{advanced: true}, nil
	case scan.Next > ask.from:
		ask.from, ask.bytes = scan.Next, fetchPartitionBytes
		return partitionStep{advanced: true}, nil
	}
	return partitionStep{}, nil // no data for it in this answer (the response was full)
}

// restartAtLogStart moves a search whose offset fell out of the log (retention or DeleteRecords
// moved the log start past it since the commit was read) to the new log start.
func (tl *timeLags) restartAtLogStart(ctx context.Context, isolation Isolation, tp topicPartition, ask *nextAsk) (partitionStep, error) {
	res, err := tl.offsets.read(ctx, OffsetsRequest{Topic: tp.topic, Partitions: []int{tp.partition}, Isolation: isolation})
	if err != nil {
		return partitionStep{}, err
	}
	p := res[0]
	if ask.from >= p.Latest {
		return partitionStep{settled: true}, nil
	}
	if p.Earliest <= ask.from {
		// The broker said out of range for an offset inside the log: a leader change. Ask again.
		return partitionStep{}, fmt.Errorf("topic %q partition %d: %w", tp.topic, tp.partition, errFetchOutOfRange)
	}
	ask.from, ask.bytes = p.Earliest, fetchPartitionBytes
	return partitionStep{advanced: true}, nil
}

// errFetchOutOfRange: Fetch said OFFSET_OUT_OF_RANGE for an offset inside the log ListOffsets
// gives; retried, since a leader change can cause it.
var errFetchOutOfRange error = askAgain("Fetch answered OFFSET_OUT_OF_RANGE for an offset inside the log")

// readTimeLags reads the next record of every partition of every group in groups that has one
// to find (nextFrom) and sets each partition's time lag, all at one read time. Groups at the same
// offset of a partition share its search; a partition that groups ask at different offsets is
// searched once per offset, in layers that each hold a partition once (a Fetch may not name a
// partition twice), the layers at once.
func (tl *timeLags) readTimeLags(ctx context.Context, isolation Isolation, groups ...[]GroupPartitionOffsets) error {
	type at struct {
		tp        topicPartition
		from      int64
		isolation Isolation
	}
	type layer struct {
		isolation Isolation
		asks      map[topicPartition]int64
	}
	var layers []layer
	seen := map[at]bool{}
	for _, ps := range groups {
		for _, p := range ps {
			from, iso, ok := nextFrom(p, isolation)
			k := at{topicPartition{p.Topic, p.Partition}, from, iso}
			if !ok || seen[k] {
				continue
			}
			seen[k] = true
			i := 0
			for ; i < len(layers); i++ {
				if _, taken := layers[i].asks[k.tp]; !taken && layers[i].isolation == iso {
					break
				}
			}
			if i == len(layers) {
				layers = append(layers, layer{iso, map[topicPartition]int64{}})
			}
			layers[i].asks[k.tp] = from
		}
	}
	found := map[at]*NextRecord{}
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for _, l := range layers {
		wg.Go(func() {
			res, err := tl.nextRecords(ctx, l.isolation, l.asks)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			for tp, r := range res {
				found[at{tp, l.asks[tp], l.isolation}] = r
			}
		})
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return err
	}
	readAt := time.Now()
	for _, ps := range groups {
		for i := range ps {
			// Only a partition with a record to find looks one up: nextFrom's 0 for a caught-up
			// partition is no position, and another group's search at offset 0 is not this one's.
			var next *NextRecord
			if from, iso, ok := nextFrom(ps[i], isolation); ok {
				next = found[at{topicPartition{ps[i].Topic, ps[i].Partition}, from, iso}]
			}
			ps[i].setTimeLag(next, readAt)
		}
	}
	return nil
}
