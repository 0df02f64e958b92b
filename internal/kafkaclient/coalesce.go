package kafkaclient

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/broker"
)

// Reads that wait at the same moment share ListOffsets requests. Each partition leader has a
// queue: a read adds what it needs (topic, partition, lookup, isolation level) to the leader's
// pending round and waits for that round. A round goes out as one ListOffsets request per lookup
// and isolation level, carrying every partition the round's reads asked for (Kafka allows one
// entry per partition per request; two reads of the same partition and lookup share the entry),
// all written at once on the leader's connection. While a round is out, new reads gather in the
// next one, which leaves when the answers are in: so a read only ever joins a round that has not
// been sent, and never uses an answer requested before it began.
//
// The requests of a round are written in the order of their lookups (listing.order),
// earliest first and latest last: a broker handles one connection's requests in order, so every
// offset a read gets lies between its earliest and its latest.

// The pending rounds of all leaders wait a little for the reads that arrive at the same moment,
// and leave together (a release) as soon as as many reads wait as were active at once before
// (coalescer.expect): when Terraform runs 10 reads at once (-parallelism), the reads of a release
// end together and Terraform starts as many new ones, which then share the next release, whichever
// leaders they need. The estimate is the client's, not a leader's: with leaders spread, the 10
// reads split differently over them each time, and a per-leader estimate kept rounds waiting in
// vain. How long a round waits at most before it releases every pending round:
//   - lingerExpected when reads are expected. Terraform takes up to about 10 ms to start the next
//     reads of a plan; shorter bounds split its reads over more rounds in the same plan wall
//     time. The bound is spent only when fewer reads come than expected (the end of a plan).
//   - lingerAlone without an estimate (the first round, or the first after an idle spell longer
//     than lingerExpected): long enough for the first reads of a plan, which Terraform starts
//     within a few milliseconds, short beside a plan.
//
// Why not natural batching, as Fetch does (fetch_batches.go: a round leaves at once when none is
// out, and the reads that come meanwhile leave when it returns)? With 10 reads under way its
// rounds settle into sizes that alternate (1 and 9: the reads of one round come back while the
// next is out), so a round trip serves 5 reads instead of 10. The figures of both rules, and of
// the bounds above, are in tools/bench/README.md.
const (
	lingerAlone    = 5 * time.Millisecond
	lingerExpected = 20 * time.Millisecond
)

// coalescer is the leaders' rounds of a Client, and what their pending rounds wait for together.
// It needs no Client: a connection for a broker (connect), the words for a request that got no
// answer (describe), a goroutine that Close waits for (spawn) and the Client's life.
type coalescer struct {
	connect  func(ctx context.Context, address string) (*broker.Conn, error)
	describe func(op string, l leader, err error) error
	spawn    func(func()) bool // false once the Client closed
	life     context.Context   // ends with Close

	mu     sync.Mutex
	queues map[string]*leaderQueue // by leader address
	// active counts the reads in rounds not done (pending or out), waiting those in pending
	// rounds not yet released, over all leaders. peak is the most reads active at once since the
	// last release: how many Terraform runs at once. expect is the peak before the last release,
	// 0 when there is no estimate (the first reads, or the first after an idle spell longer than
	// lingerExpected).
	active, waiting, peak, expect int
	returned                      time.Time // when the answers of the last round came in
}

func newCoalescer(life context.Context, spawn func(func()) bool,
	connect func(context.Context, string) (*broker.Conn, error), describe func(string, leader, error) error,
) *coalescer {
	return &coalescer{connect: connect, describe: describe, spawn: spawn, life: life, queues: map[string]*leaderQueue{}}
}

// lookupKey is one ListOffsets request of a round: its timestamp and isolation level.
type lookupKey struct {
	isolation Isolation
	timestamp int64
}

// listing is one ListOffsets request as a read asks it of a leader: its key, and what the
// coalescer needs to send it and to read its answers (from the lookup, lookups.go).
type listing struct {
	key         lookupKey
	order       int    // its place in a round (lookup.order)
	op          string // for errors: what was asked
	mayFindNone bool   // an answer of -1 without an error means "no such record"
	// unsupported is the error for UNSUPPORTED_VERSION where the lookup needs a feature of the
	// broker; nil: the code is a *BrokerError like any other.
	unsupported error
}

// leaderAsk is what one read asks one leader: its partitions, each for every listing.
type leaderAsk struct {
	partitions []topicPartition
	listings   []listing
}

// answer is one entry of a round, shared by the reads that asked for it.
type answer struct {
	offset, timestamp int64
	err               error
}

// entries are the partitions of one ListOffsets request of a round, each asked once, and their
// answers, by topic: a big read asks for a million, so a topic's are held by value in one slice
// with an index by partition, and a read's partitions cost one lookup of the topic's name per run
// of the topic's (topicRuns), not one per partition.
type entries struct {
	topics map[string]*topicEntries
}

// topicEntries are the partitions of one topic in a request, and their answers.
type topicEntries struct {
	topic string
	index map[int32]int // into asked, by partition
	asked []entry
}

// entry is one partition of a request and its answer.
type entry struct {
	partition int32
	answer
	answered bool // the response had the partition (record)
}

// add asks for partitions, unless they are asked already.
func (es *entries) add(partitions []topicPartition) {
	for topic, run := range topicRuns(partitions) {
		te := es.topics[topic]
		if te == nil {
			te = &topicEntries{topic: topic, index: make(map[int32]int, len(run)), asked: make([]entry, 0, len(run))}
			es.topics[topic] = te
		}
		for _, p := range run {
			te.add(int32(p.partition))
		}
	}
}

// add asks for partition, unless it is asked already.
func (te *topicEntries) add(partition int32) {
	if _, ok := te.index[partition]; !ok {
		te.index[partition] = len(te.asked)
		te.asked = append(te.asked, entry{partition: partition})
	}
}

// answer is the answer of partition; nil if it was not asked.
func (te *topicEntries) answer(partition int32) *answer {
	if te == nil {
		return nil
	}
	i, ok := te.index[partition]
	if !ok {
		return nil
	}
	return &te.asked[i].answer
}

// each calls fn for every entry of es.
func (es *entries) each(fn func(topic string, e *entry)) {
	for _, te := range es.topics {
		for i := range te.asked {
			fn(te.topic, &te.asked[i])
		}
	}
}

// topicRuns yields partitions one run of the same topic at a time (a topic whose partitions are
// not together comes in several runs).
func topicRuns(partitions []topicPartition) iter.Seq2[string, []topicPartition] {
	return func(yield func(string, []topicPartition) bool) {
		for start := 0; start < len(partitions); {
			end := start + 1
			for end < len(partitions) && partitions[end].topic == partitions[start].topic {
				end++
			}
			if !yield(partitions[start].topic, partitions[start:end]) {
				return
			}
			start = end
		}
	}
}

// round is what one leader is asked at once.
type round struct {
	reads    int       // how many reads joined
	released bool      // it may leave (coalescer.release); reads still join until it is sent
	sent     bool      // it left: its requests are out, or failed
	started  time.Time // when its first read joined
	asks     map[lookupKey]*entries
	listings map[lookupKey]listing // how to send and read each request: the first read's listing
	deadline time.Time             // the latest deadline of its reads: how long the answers are worth waiting for
	done     chan struct{}         // closed when every answer (or error) is in

	observers *sharedObservers // its reads' Observers: each hears of the round's dial and requests
}

// leaderQueue is one leader's pending round, and whether a round is out.
type leaderQueue struct {
	leader  leader
	pending *round
	busy    bool          // a flusher runs: lingering, or a round is out
	wake    chan struct{} // the pending round was released
}

// read asks each leader of asks for its partitions' listings, in the leader's pending round, and
// waits for those rounds. The answers stay in the rounds (round.answer). A read whose context
// ends first returns at once (ended); its round still leaves for the reads beside it.
func (co *coalescer) read(ctx context.Context, asks map[leader]leaderAsk) (map[leader]*round, error) {
	rounds := make(map[leader]*round, len(asks))
	for l, a := range asks {
		r, err := co.enqueue(ctx, l, a.partitions, a.listings)
		if err != nil {
			return nil, err // the rounds already joined are served without this read
		}
		rounds[l] = r
	}
	for l, r := range rounds {
		select {
		case <-r.done:
		case <-ctx.Done():
			return nil, co.ended(ctx, l, asks[l].partitions, r)
		}
	}
	return rounds, nil
}

// ended is the error of a read whose context ended while it waited for l's round r. Only a read
// that passed its deadline while r was out blames the broker (what the connection says of it:
// describe); a read cancelled, or that passed its deadline before r left, says so
// (*ReadEndedError): its requests had not reached the broker, or the broker was not late.
func (co *coalescer) ended(ctx context.Context, l leader, partitions []topicPartition, r *round) error {
	co.mu.Lock()
	sent := r.sent
	co.mu.Unlock()
	op := "ListOffsets for " + describePartitions(partitions)
	if sent && !errors.Is(ctx.Err(), context.Canceled) {
		return co.describe(op, l, ctx.Err())
	}
	return &ReadEndedError{Op: op, Broker: describeBroker(l.address, int(l.id)), Sent: sent, Err: ctx.Err()}
}

// enqueue adds a read's listings for partitions, led by l, to l's pending round and returns that
// round; errClosed after Close.
func (co *coalescer) enqueue(ctx context.Context, l leader, partitions []topicPartition, listings []listing) (*round, error) {
	co.mu.Lock()
	defer co.mu.Unlock()
	q := co.queues[l.address]
	if q == nil {
		q = &leaderQueue{wake: make(chan struct{}, 1)}
		co.queues[l.address] = q
	}
	// Without a flusher, none lingers and no round is out: start one. It waits for co.mu, so for
	// this read's round.
	if !q.busy {
		if !co.spawn(func() { co.flush(q) }) {
			return nil, errClosed
		}
		q.busy = true
	}
	if co.active == 0 && time.Since(co.returned) > lingerExpected {
		co.expect = 0 // an idle spell: the last release says nothing of these reads
	}
	q.leader = l // the latest metadata's id for the address
	r := q.pending
	if r == nil {
		r = &round{started: time.Now(), asks: map[lookupKey]*entries{},
			listings: map[lookupKey]listing{}, done: make(chan struct{})}
		q.pending = r
	}
	r.reads++
	co.active++
	co.peak = max(co.peak, co.active)
	if !r.released {
		co.waiting++
		if co.expect > 0 && co.waiting >= co.expect {
			co.release()
		}
	}
	r.add(ctx, partitions, listings)
	return r, nil
}

// add asks for every listing of partitions in r, once per partition and key, whoever asked
// first, and lets r wait as long as the read's deadline.
func (r *round) add(ctx context.Context, partitions []topicPartition, listings []listing) {
	for _, ls := range listings {
		es := r.asks[ls.key]
		if es == nil {
			es = &entries{topics: map[string]*topicEntries{}}
			r.asks[ls.key] = es
			r.listings[ls.key] = ls
		}
		es.add(partitions)
	}
	if d, ok := ctx.Deadline(); ok && d.After(r.deadline) {
		r.deadline = d
	}
	r.observers = r.observers.joined(ctx) // under co.mu, as every join
}

// release lets every pending round leave now, and takes the most reads that were active at once
// since the last release as the estimate for the next. Called with co.mu held.
func (co *coalescer) release() {
	co.expect, co.peak, co.waiting = co.peak, co.active, 0
	for _, q := range co.queues {
		if r := q.pending; r != nil && !r.released {
			r.released = true
			select {
			case q.wake <- struct{}{}:
			default:
			}
		}
	}
}

// flush sends q's rounds one after the other until none is pending, each once it is released.
func (co *coalescer) flush(q *leaderQueue) {
	for {
		co.linger(q)
		co.mu.Lock()
		r, l := q.pending, q.leader
		q.pending = nil
		if r != nil {
			r.sent = true
		}
		switch {
		case r == nil:
			q.busy = false
		case !r.released: // the Client closed: the round fails at once
			co.waiting -= r.reads
		}
		co.mu.Unlock()
		if r == nil {
			return
		}
		co.send(l, r)
		co.mu.Lock()
		co.returned = time.Now()
		co.active -= r.reads
		co.mu.Unlock()
		close(r.done)
	}
}

// linger waits until q's pending round is released: by the read that completes the expected
// number, or here once the round is as old as its bound; or until the Client closed. Without a
// pending round it returns at once: flush then ends.
func (co *coalescer) linger(q *leaderQueue) {
	for {
		co.mu.Lock()
		r := q.pending
		if r == nil || r.released {
			co.mu.Unlock()
			return
		}
		bound := lingerAlone
		if co.expect > 0 {
			bound = lingerExpected
		}
		wait := time.Until(r.started.Add(bound))
		if wait <= 0 {
			co.release()
			co.mu.Unlock()
			return
		}
		co.mu.Unlock()
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-q.wake:
			timer.Stop()
		case <-co.life.Done():
			timer.Stop()
			return
		}
	}
}

// send asks l everything in r, one request per lookup key, all written before the first answer
// is read, and records every answer or error in r. Where the broker closes the connection at one
// request, those written after it, which it never began (broker.ErrNotReached), are sent again at
// once on a new connection: a lookup the broker refuses costs the others of the round nothing.
// A pass whose connection another request had closed so leaves every key for the next; past
// twice as many passes as keys, the keys left fail.
func (co *coalescer) send(l leader, r *round) {
	ctx, cancel := context.WithDeadline(co.life, r.deadline)
	defer cancel()
	ctx = r.observers.context(ctx)
	keys := r.keys()
	for passes := 2 * len(keys); len(keys) > 0; passes-- {
		keys = co.sendOnce(ctx, l, r, keys, passes > 1)
	}
}

// sendOnce sends keys of r on l's connection and records their answers or errors, but for the
// keys it returns (with more): those the broker never began, to send again.
func (co *coalescer) sendOnce(ctx context.Context, l leader, r *round, keys []lookupKey, more bool) (again []lookupKey) {
	conn, err := co.connect(ctx, l.address)
	if err != nil {
		for _, k := range keys {
			co.failAll(l, r.listings[k], r.asks[k], err)
		}
		return nil
	}
	notReached := func(err error) bool { return more && errors.Is(err, broker.ErrNotReached) && ctx.Err() == nil }
	calls := make([]*broker.Call, len(keys))
	for i, k := range keys {
		calls[i], err = conn.Send(ctx, listOffsetsFor(k, r.asks[k], r.deadline))
		switch {
		case notReached(err):
			again = append(again, k)
		case err != nil:
			co.failAll(l, r.listings[k], r.asks[k], err)
		}
	}
	for i, k := range keys {
		if calls[i] == nil {
			continue
		}
		m, err := conn.Wait(ctx, calls[i])
		switch {
		case notReached(err):
			again = append(again, k)
			continue
		case err != nil:
			co.failAll(l, r.listings[k], r.asks[k], err)
			continue
		}
		res, err := answerAs[*kmsg.ListOffsetsResponse]("ListOffsets", m)
		if err != nil {
			co.failAll(l, r.listings[k], r.asks[k], err)
			continue
		}
		record(l, r.listings[k], r.asks[k], res)
	}
	return again
}

// keys are the lookup keys of r in the order they are sent (listing.order), then by timestamp
// and isolation level, read_committed first: a read's last stable offset is asked before its high
// watermark (highWatermarkLookup), whichever read's listing of the two came first.
func (r *round) keys() []lookupKey {
	keys := make([]lookupKey, 0, len(r.asks))
	for k := range r.asks {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b lookupKey) int {
		return cmp.Or(cmp.Compare(r.listings[a].order, r.listings[b].order),
			cmp.Compare(a.timestamp, b.timestamp), cmp.Compare(b.isolation, a.isolation))
	})
	return keys
}

// listOffsetsFor is the request of one lookup key: every partition asked, by topic. A lookup
// that reads remote storage (v10+) may take until the deadline.
func listOffsetsFor(k lookupKey, es *entries, deadline time.Time) *kmsg.ListOffsetsRequest {
	timeout := min(max(time.Until(deadline).Milliseconds(), 0), math.MaxInt32)
	req := &kmsg.ListOffsetsRequest{ReplicaID: -1, IsolationLevel: int8(k.isolation), TimeoutMillis: int32(timeout)}
	for topic, te := range es.topics {
		ps := make([]kmsg.ListOffsetsRequestTopicPartition, len(te.asked))
		for i, e := range te.asked {
			ps[i] = kmsg.ListOffsetsRequestTopicPartition{Partition: e.partition, CurrentLeaderEpoch: -1, Timestamp: k.timestamp}
		}
		slices.SortFunc(ps, func(a, b kmsg.ListOffsetsRequestTopicPartition) int { return cmp.Compare(a.Partition, b.Partition) })
		req.Topics = append(req.Topics, kmsg.ListOffsetsRequestTopic{Topic: topic, Partitions: ps})
	}
	slices.SortFunc(req.Topics, func(a, b kmsg.ListOffsetsRequestTopic) int { return cmp.Compare(a.Topic, b.Topic) })
	return req
}

// failAll records a request's failure (no answer from l) for each of its entries, naming each
// entry's own topic and partition.
func (co *coalescer) failAll(l leader, ls listing, es *entries, err error) {
	es.each(func(topic string, e *entry) {
		e.err = co.describe(fmt.Sprintf("%s for topic %q partition %d", ls.op, topic, e.partition), l, err)
	})
}

// record records the answer of every entry asked, from the response's partitions (the last, if
// one comes twice; those not asked are ignored), and an error for each entry it lacks.
func record(l leader, ls listing, es *entries, res *kmsg.ListOffsetsResponse) {
	for _, t := range res.Topics {
		te := es.topics[t.Topic]
		if te == nil {
			continue
		}
		for _, p := range t.Partitions {
			if i, ok := te.index[p.Partition]; ok {
				e := &te.asked[i]
				e.answer, e.answered = judge(l, ls, t.Topic, p), true
			}
		}
	}
	es.each(func(topic string, e *entry) {
		if !e.answered {
			e.err = fmt.Errorf("%s for topic %q partition %d: the broker's answer has no entry for the partition",
				ls.op, topic, e.partition)
		}
	})
}

// judge is the answer of topic's partition p: its offsets, or why they cannot be used. An entry
// with an error carries placeholder offsets (-1): never used.
func judge(l leader, ls listing, topic string, p kmsg.ListOffsetsResponseTopicPartition) answer {
	op := ls.op
	switch {
	case p.ErrorCode == int16(kafka.UnsupportedVersion) && ls.unsupported != nil:
		return answer{err: ls.unsupported}
	case p.ErrorCode != 0:
		return answer{err: &BrokerError{Op: op, Topic: topic, Partition: int(p.Partition), Code: ErrorCode(p.ErrorCode),
			Broker: describeBroker(l.address, int(l.id))}}
	case p.Offset < 0 && !ls.mayFindNone:
		return answer{err: fmt.Errorf("%s for topic %q partition %d: broker answered offset %d without an error",
			op, topic, p.Partition, p.Offset)}
	case ls.key.timestamp >= 0 && p.Offset >= 0 && p.Timestamp < ls.key.timestamp: // a lookup by time
		return answer{err: &ImpossibleAnswerError{Op: fmt.Sprintf("%s for topic %q partition %d", op, topic, p.Partition),
			Broker: describeBroker(l.address, int(l.id)),
			What:   fmt.Sprintf("offset %d with timestamp %d to a lookup by time %d", p.Offset, p.Timestamp, ls.key.timestamp),
			Kafka:  "it answers a record found by time with that record's timestamp, at or after the time asked, and offset -1 where no record is that late"}}
	default:
		return answer{offset: p.Offset, timestamp: p.Timestamp}
	}
}

// collect takes from each leader's round the answers of the read's partitions, one per lookup
// asked of it, into a slice per topic, and notes on each partition the optional lookups its leader
// did not answer (goesWithout) or was not asked (plan.unasked). It reports the first error of any
// other answer (firstError).
func collect(plan lookupPlan, rounds map[leader]*round) (map[string][]PartitionOffsets, error) {
	out := sizedByTopic(plan.asks)
	var errs []error
	for l, r := range rounds {
		a := plan.asks[l]
		for topic, run := range topicRuns(a.partitions) {
			ps := out[topic]
			start := len(ps)
			for _, tp := range run {
				ps = append(ps, PartitionOffsets{Partition: tp.partition})
			}
			out[topic] = ps
			for i, lk := range plan.asked[l] {
				answers := r.asks[a.listings[i].key].topics[topic]
				for j, tp := range run {
					an := answers.answer(int32(tp.partition))
					switch {
					case an.err == nil:
						lk.set(&ps[start+j], an.offset, an.timestamp)
					case lk.optional && goesWithout(an.err):
						ps[start+j].Unanswered = append(ps[start+j].Unanswered, Unanswered{Lookup: lk.name, Err: an.err})
					default:
						errs = append(errs, an.err)
					}
				}
			}
			for j := range run {
				ps[start+j].Unanswered = append(ps[start+j].Unanswered, plan.unasked[l]...)
			}
		}
	}
	return out, firstError(errs)
}

// sizedByTopic is an empty slice per topic of asks, with room for its partitions: grown
// partition by partition, the slices of a big read cost twice their size.
func sizedByTopic(asks map[leader]leaderAsk) map[string][]PartitionOffsets {
	counts := map[string]int{}
	for _, a := range asks {
		for topic, run := range topicRuns(a.partitions) {
			counts[topic] += len(run)
		}
	}
	out := make(map[string][]PartitionOffsets, len(counts))
	for topic, n := range counts {
		out[topic] = make([]PartitionOffsets, 0, n)
	}
	return out
}
