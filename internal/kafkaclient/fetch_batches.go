package kafkaclient

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// Next-record reads that run at the same time share Fetch requests, per leader and isolation
// level, by natural batching: a read whose leader has no Fetch of its kind out sends at once;
// reads that come while one is out gather in the next batch, which leaves as soon as the answer
// is in. No timer: at loopback a read waits for nothing, and at a long round trip the reads of a
// plan share requests by themselves. A read only joins a batch that has not been sent, so it
// never uses an answer asked for before it began. Kafka reads a partition once per request:
// reads that want a partition at the same offset share its entry; a read that wants it at
// another offset waits for the next batch.

// fetchBatches are the Fetch queues of a Client; send is the one round trip they make.
type fetchBatches struct {
	send func(ctx context.Context, l leader, req *kmsg.FetchRequest) (*kmsg.FetchResponse, error)
	// spawn runs a batch's sending loop in a goroutine of the Client; false once it is closed.
	spawn func(func()) bool
	life  context.Context

	mu     sync.Mutex
	queues map[fetchQueueKey]*fetchQueue
}

type fetchQueueKey struct {
	address   string
	isolation Isolation
}

// fetchQueue is one leader's batch that gathers, and whether a request is out.
type fetchQueue struct {
	out  bool
	next *fetchBatch
}

// fetchBatch is one Fetch request of one leader, shared by the reads that joined it.
type fetchBatch struct {
	l         leader
	isolation Isolation
	asks      map[topicPartition]nextAsk // offset and bytes of each partition
	deadline  time.Time                  // the latest deadline of its reads
	done      chan struct{}              // closed when res or err is in
	res       *kmsg.FetchResponse
	err       error
	observers *sharedObservers // its reads' Observers: each hears of the request
}

func newFetchBatches(life context.Context, spawn func(func()) bool,
	send func(context.Context, leader, *kmsg.FetchRequest) (*kmsg.FetchResponse, error),
) *fetchBatches {
	return &fetchBatches{send: send, spawn: spawn, life: life, queues: map[fetchQueueKey]*fetchQueue{}}
}

// fetch asks leader l for every partition of asks, alone or with the reads that wait at the same
// time, and returns the answer of the request that carried them (which may hold other reads'
// partitions too).
func (b *fetchBatches) fetch(ctx context.Context, l leader, isolation Isolation, asks map[topicPartition]*nextAsk) (*kmsg.FetchResponse, error) {
	for {
		batch, err := b.join(ctx, l, isolation, asks)
		if err != nil {
			return nil, err
		}
		select {
		case <-batch.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if batch.err == nil && !holdsAll(batch, asks) {
			continue // a partition was taken at another offset: the next batch carries it
		}
		return batch.res, batch.err
	}
}

// join adds asks to the gathering batch of l's queue where they fit (a partition at another
// offset does not), starting its sending loop when no request is out, and returns it.
func (b *fetchBatches) join(ctx context.Context, l leader, isolation Isolation, asks map[topicPartition]*nextAsk) (*fetchBatch, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := fetchQueueKey{l.address, isolation}
	q := b.queues[key]
	if q == nil {
		q = &fetchQueue{}
		b.queues[key] = q
	}
	if q.next == nil {
		q.next = &fetchBatch{l: l, isolation: isolation, asks: map[topicPartition]nextAsk{}, done: make(chan struct{})}
	}
	batch := q.next
	for tp, a := range asks {
		have, taken := batch.asks[tp]
		switch {
		case !taken:
			batch.asks[tp] = *a
		case have.from == a.from:
			have.bytes = max(have.bytes, a.bytes)
			batch.asks[tp] = have
		}
	}
	if d, ok := ctx.Deadline(); ok && d.After(batch.deadline) {
		batch.deadline = d
	}
	batch.observers = batch.observers.joined(ctx)
	if !q.out {
		q.out = true
		if !b.spawn(func() { b.sendAll(q) }) {
			q.out = false
			return nil, errClosed
		}
	}
	return batch, nil
}

// holdsAll says whether batch asked for every partition of asks at its offset.
func holdsAll(batch *fetchBatch, asks map[topicPartition]*nextAsk) bool {
	for tp, a := range asks {
		if batch.asks[tp].from != a.from {
			return false
		}
	}
	return true
}

// sendAll sends q's gathering batch, and the next one that gathered meanwhile, until none has.
func (b *fetchBatches) sendAll(q *fetchQueue) {
	for {
		b.mu.Lock()
		batch := q.next
		q.next = nil
		if batch == nil || len(batch.asks) == 0 {
			q.out = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		ctx, cancel := b.sendContext(batch)
		batch.res, batch.err = b.send(batch.observers.context(ctx), batch.l, batch.request())
		cancel()
		close(batch.done)
	}
}

// sendContext bounds a batch's request by its reads' latest deadline (every read has one, its
// timeout; a zero one would end the request at once) and by the Client's life.
func (b *fetchBatches) sendContext(batch *fetchBatch) (context.Context, context.CancelFunc) {
	if batch.deadline.IsZero() {
		return context.WithCancel(b.life)
	}
	return context.WithDeadline(b.life, batch.deadline)
}

// request is the batch's Fetch request: the partitions by topic and partition, except that a
// partition whose next batch is larger than the response bound goes first, where a broker
// returns a whole batch whatever the limits (KIP-74).
func (batch *fetchBatch) request() *kmsg.FetchRequest {
	tps := make([]topicPartition, 0, len(batch.asks))
	for tp := range batch.asks {
		tps = append(tps, tp)
	}
	slices.SortFunc(tps, func(a, b topicPartition) int {
		return cmp.Or(cmp.Compare(a.topic, b.topic), cmp.Compare(a.partition, b.partition))
	})
	if i := slices.IndexFunc(tps, func(tp topicPartition) bool { return batch.asks[tp].bytes > fetchResponseBytes }); i > 0 {
		tps[0], tps[i] = tps[i], tps[0]
	}
	req := &kmsg.FetchRequest{
		ReplicaID:      wire.FetchConsumerReplica,
		MaxWaitMillis:  0,
		MinBytes:       0, // answer at once: the data is there or the log ends
		MaxBytes:       fetchResponseBytes,
		IsolationLevel: int8(batch.isolation),
		SessionID:      wire.FetchNoSession,
		SessionEpoch:   wire.FetchFinalEpoch,
	}
	for _, tp := range tps {
		ask := batch.asks[tp]
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != tp.topic {
			req.Topics = append(req.Topics, kmsg.FetchRequestTopic{Topic: tp.topic})
		}
		t := &req.Topics[len(req.Topics)-1]
		t.Partitions = append(t.Partitions, kmsg.FetchRequestTopicPartition{
			Partition: int32(tp.partition), CurrentLeaderEpoch: wire.FetchNoLeaderEpoch, FetchOffset: ask.from,
			LogStartOffset: wire.FetchNoLogStart, PartitionMaxBytes: ask.bytes,
		})
	}
	return req
}
