package kafkaclient

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/broker"
)

// The coalescer needs no Client, only a broker's connections: a read of two partitions of one
// leader goes out as one ListOffsets request per lookup (not per partition), and each partition
// gets its own answer.
func TestCoalescerAsksOneRequestPerLookupWithoutAClient(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(2, "t"))
	produce(t, c, "t", 1, 3)
	pool := broker.NewPool(broker.NewDialer(broker.NewDialLog((&net.Dialer{}).DialContext, true), nil, nil, "", "coalescer-test"), 5*time.Second)
	t.Cleanup(pool.Close)
	life, end := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { end(); wg.Wait() })
	co := newCoalescer(life, func(fn func()) bool { wg.Go(fn); return true }, pool.Get,
		func(op string, l leader, err error) error { return fmt.Errorf("%s to %s: %w", op, l.address, err) })

	l := leader{id: 0, address: c.ListenAddrs()[0]}
	partitions := []topicPartition{{"t", 0}, {"t", 1}}
	earliest, latest := earliestLookup.listing(ReadUncommitted), latestLookup.listing(ReadUncommitted)
	counts := acctest.CountRequests(c)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rounds, err := co.read(ctx, map[leader]leaderAsk{l: {partitions: partitions, listings: []listing{earliest, latest}}})
	if err != nil {
		t.Fatal(err)
	}
	type offsets struct{ Earliest, Latest int64 }
	got := map[int]offsets{}
	for _, tp := range partitions {
		e, la := rounds[l].answer(earliest.key, tp), rounds[l].answer(latest.key, tp)
		if e.err != nil || la.err != nil {
			t.Fatalf("partition %d: %v, %v", tp.partition, e.err, la.err)
		}
		got[tp.partition] = offsets{e.offset, la.offset}
	}
	if diff := cmp.Diff(map[int]offsets{0: {0, 0}, 1: {0, 3}}, got); diff != "" {
		t.Errorf("offsets by partition (-want +got):\n%s", diff)
	}
	if n := counts()[int16(kmsg.ListOffsets)]; n != 2 {
		t.Errorf("ListOffsets requests: %d, want 2 (earliest and latest, each for both partitions)", n)
	}
}
