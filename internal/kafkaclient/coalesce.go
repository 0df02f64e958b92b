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

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/broker"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
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
// The requests of a round are written in the order of their lookups (lookup.order, lookups.go),
// earliest first and latest last: a broker handles one connection's requests in order, so every
// offset a read gets lies between its earliest and its latest.

// The pending rounds of all leaders wait a little for the reads that arrive at the same moment,
// and leave together (a release) as soon as as many reads wait as were active at once before
// (roundQueues.expect): when Terraform runs 10 reads at once (-parallelism), the reads of a release
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

// lookupKey is one ListOffsets request of a round: its timestamp and isolation level.
type lookupKey struct {
	isolation Isolation
	timestamp int64
}

// askKey is one partition's entry in a ListOffsets request.
type askKey struct {
	topic     string
	partition int32
}

// answer is one entry of a round, shared by the reads that asked for it.
type answer struct {
	offset, timestamp int64
	err               error
}

// round is what one leader is asked at once.
type round struct {
	reads    int       // how many reads joined
	released bool      // it may leave (roundQueues.release); reads still join until it is sent
	started  time.Time // when its first read joined
	asks     map[lookupKey]map[askKey]*answer
	deadline time.Time     // the latest deadline of its reads: how long the answers are worth waiting for
	done     chan struct{} // closed when every answer (or error) is in
}

// leaderQueue is one leader's pending round, and whether a round is out.
type leaderQueue struct {
	leader  leader
	pending *round
	busy    bool          // a flusher runs: lingering, or a round is out
	wake    chan struct{} // the pending round was released
}

// roundQueues are the leaders' queues, and what their pending rounds wait for together.
type roundQueues struct {
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

func newRoundQueues() *roundQueues { return &roundQueues{queues: map[string]*leaderQueue{}} }

// enqueue adds a read's asks for partitions, led by l, to l's pending round and returns that
// round; errClosed after Close.
func (c *Client) enqueue(ctx context.Context, l leader, partitions []topicPartition, keys []lookupKey) (*round, error) {
	rq := c.rounds
	rq.mu.Lock()
	defer rq.mu.Unlock()
	q := rq.queues[l.address]
	if q == nil {
		q = &leaderQueue{wake: make(chan struct{}, 1)}
		rq.queues[l.address] = q
	}
	// Without a flusher, none lingers and no round is out: start one. It waits for rq.mu, so for
	// this read's round.
	if !q.busy {
		if !c.goShared(func() { c.flush(q) }) {
			return nil, errClosed
		}
		q.busy = true
	}
	if rq.active == 0 && time.Since(rq.returned) > lingerExpected {
		rq.expect = 0 // an idle spell: the last release says nothing of these reads
	}
	q.leader = l // the latest metadata's id for the address
	r := q.pending
	if r == nil {
		r = &round{started: time.Now(), asks: map[lookupKey]map[askKey]*answer{}, done: make(chan struct{})}
		q.pending = r
	}
	r.reads++
	rq.active++
	rq.peak = max(rq.peak, rq.active)
	if !r.released {
		rq.waiting++
		if rq.expect > 0 && rq.waiting >= rq.expect {
			rq.release()
		}
	}
	r.add(ctx, partitions, keys)
	return r, nil
}

// add asks for every lookup key of partitions in r (once per partition and key, whoever asked
// first), and lets r wait as long as the read's deadline.
func (r *round) add(ctx context.Context, partitions []topicPartition, keys []lookupKey) {
	for _, k := range keys {
		m := r.asks[k]
		if m == nil {
			m = map[askKey]*answer{}
			r.asks[k] = m
		}
		for _, p := range partitions {
			tp := askKey{p.topic, int32(p.partition)}
			if m[tp] == nil {
				m[tp] = &answer{}
			}
		}
	}
	if d, ok := ctx.Deadline(); ok && d.After(r.deadline) {
		r.deadline = d
	}
}

// release lets every pending round leave now, and takes the most reads that were active at once
// since the last release as the estimate for the next. Called with rq.mu held.
func (rq *roundQueues) release() {
	rq.expect, rq.peak, rq.waiting = rq.peak, rq.active, 0
	for _, q := range rq.queues {
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
func (c *Client) flush(q *leaderQueue) {
	rq := c.rounds
	for {
		c.linger(q)
		rq.mu.Lock()
		r, l := q.pending, q.leader
		q.pending = nil
		switch {
		case r == nil:
			q.busy = false
		case !r.released: // the Client closed: the round fails at once
			rq.waiting -= r.reads
		}
		rq.mu.Unlock()
		if r == nil {
			return
		}
		c.send(l, r)
		rq.mu.Lock()
		rq.returned = time.Now()
		rq.active -= r.reads
		rq.mu.Unlock()
		close(r.done)
	}
}

// linger waits until q's pending round is released: by the read that completes the expected
// number, or here once the round is as old as its bound; or until the Client closed. Without a
// pending round it returns at once: flush then ends.
func (c *Client) linger(q *leaderQueue) {
	rq := c.rounds
	for {
		rq.mu.Lock()
		r := q.pending
		if r == nil || r.released {
			rq.mu.Unlock()
			return
		}
		bound := lingerAlone
		if rq.expect > 0 {
			bound = lingerExpected
		}
		wait := time.Until(r.started.Add(bound))
		if wait <= 0 {
			rq.release()
			rq.mu.Unlock()
			return
		}
		rq.mu.Unlock()
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-q.wake:
			timer.Stop()
		case <-c.life.Done():
			timer.Stop()
			return
		}
	}
}

// send asks l everything in r, one request per lookup key, all written before the first answer
// is read, and records every answer or error in r.
func (c *Client) send(l leader, r *round) {
	ctx, cancel := context.WithDeadline(c.life, r.deadline)
	defer cancel()
	keys := r.keys()
	conn, err := c.brokers.Get(ctx, l.address)
	if err != nil {
		for _, k := range keys {
			failAll(c, l, k, r.asks[k], err)
		}
		return
	}
	calls := make([]*broker.Call, len(keys))
	for i, k := range keys {
		if calls[i], err = conn.Send(ctx, listOffsetsFor(k, r.asks[k], r.deadline)); err != nil {
			failAll(c, l, k, r.asks[k], err)
		}
	}
	for i, k := range keys {
		if calls[i] == nil {
			continue
		}
		m, err := conn.Wait(ctx, calls[i])
		if err != nil {
			failAll(c, l, k, r.asks[k], err)
			continue
		}
		res, ok := m.(*wire.ListOffsetsResponse)
		if !ok {
			failAll(c, l, k, r.asks[k], fmt.Errorf("unexpected response type %T", m))
			continue
		}
		record(l, k, r.asks[k], res)
	}
}

// keys are the lookup keys of r in the order they are sent (lookup.order), then by timestamp and
// isolation level.
func (r *round) keys() []lookupKey {
	keys := make([]lookupKey, 0, len(r.asks))
	for k := range r.asks {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b lookupKey) int {
		return cmp.Or(cmp.Compare(lookupOf(a.timestamp).order, lookupOf(b.timestamp).order),
			cmp.Compare(a.timestamp, b.timestamp), cmp.Compare(a.isolation, b.isolation))
	})
	return keys
}

// listOffsetsFor is the request of one lookup key: every partition asked, by topic. A lookup
// that reads remote storage (v10+) may take until the deadline.
func listOffsetsFor(k lookupKey, asks map[askKey]*answer, deadline time.Time) *wire.ListOffsetsRequest {
	byTopic := map[string][]wire.ListOffsetsRequestPartition{}
	for tp := range asks {
		byTopic[tp.topic] = append(byTopic[tp.topic], wire.ListOffsetsRequestPartition{
			Partition: tp.partition, CurrentLeaderEpoch: -1, Timestamp: k.timestamp})
	}
	timeout := min(max(time.Until(deadline).Milliseconds(), 0), math.MaxInt32)
	req := &wire.ListOffsetsRequest{ReplicaID: -1, IsolationLevel: int8(k.isolation), TimeoutMs: int32(timeout)}
	for topic, ps := range byTopic {
		slices.SortFunc(ps, func(a, b wire.ListOffsetsRequestPartition) int { return cmp.Compare(a.Partition, b.Partition) })
		req.Topics = append(req.Topics, wire.ListOffsetsRequestTopic{Topic: topic, Partitions: ps})
	}
	slices.SortFunc(req.Topics, func(a, b wire.ListOffsetsRequestTopic) int { return cmp.Compare(a.Topic, b.Topic) })
	return req
}

// failAll records a request's failure (no answer from l) for each of its entries, naming each
// entry's own topic and partition.
func failAll(c *Client, l leader, k lookupKey, asks map[askKey]*answer, err error) {
	op := lookupOf(k.timestamp).op
	for tp, a := range asks {
		a.err = c.requestError(fmt.Sprintf("%s for topic %q partition %d", op, tp.topic, tp.partition),
			l.address, int(l.id), err)
	}
}

// record checks that every entry asked has an answer without an error and records it. An entry
// with an error carries placeholder offsets (-1): never used.
func record(l leader, k lookupKey, asks map[askKey]*answer, res *wire.ListOffsetsResponse) {
	answered := make(map[askKey]wire.ListOffsetsResponsePartition, len(asks))
	for _, t := range res.Topics {
		for _, p := range t.Partitions {
			answered[askKey{t.Topic, p.Partition}] = p
		}
	}
	lk := lookupOf(k.timestamp)
	op := lk.op
	for tp, a := range asks {
		p, ok := answered[tp]
		switch {
		case !ok:
			a.err = fmt.Errorf("%s for topic %q partition %d: the broker's answer has no entry for the partition",
				op, tp.topic, tp.partition)
		case p.ErrorCode == int16(kafka.UnsupportedVersion) && lk.optional:
			a.offset, a.timestamp = -1, -1 // as unanswered as a broker too old to be asked
		case p.ErrorCode == int16(kafka.UnsupportedVersion) && lk.needs != nil:
			a.err = lk.unsupported("")
		case p.ErrorCode != 0:
			a.err = &BrokerError{Op: op, Topic: tp.topic, Partition: int(tp.partition), Code: ErrorCode(p.ErrorCode),
				Broker: describeBroker(l.address, int(l.id))}
		case p.Offset < 0 && !lk.mayFindNone:
			a.err = fmt.Errorf("%s for topic %q partition %d: broker answered offset %d without an error",
				op, tp.topic, tp.partition, p.Offset)
		default:
			a.offset, a.timestamp = p.Offset, p.Timestamp
		}
	}
}
