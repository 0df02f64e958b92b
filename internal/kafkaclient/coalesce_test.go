package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
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

// Reads against a round that lingers (coalesce.go: up to lingerExpected when the queue expects
// reads). Durations are logged, never asserted; values and errors are.

// A read whose own deadline is shorter than its round's linger, or that is cancelled while the
// round lingers, returns when its context ends, with an error that says so; the round still
// leaves and serves the read beside it.
func TestReadEndsWhileItsRoundLingers(t *testing.T) {
	c := lingerCluster(t)
	cl := newClient(t, c, 5*time.Second)
	wave(t, cl, 10) // the queue now expects 10 reads: the next round lingers up to lingerExpected

	short, cancelShort := context.WithTimeout(context.Background(), 2*time.Millisecond)
	defer cancelShort()
	cancelled, cancel := context.WithCancel(context.Background())
	type result struct {
		took time.Duration
		err  error
	}
	var shortRes, cancelledRes, otherRes result
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); shortRes.took, shortRes.err = readP(short, cl, 3) }()
	go func() { defer wg.Done(); cancelledRes.took, cancelledRes.err = readP(cancelled, cl, 4) }()
	go func() { defer wg.Done(); otherRes.took, otherRes.err = readP(context.Background(), cl, 5) }()
	time.Sleep(time.Millisecond)
	cancel()
	wg.Wait()
	t.Logf("deadline 2 ms: %v after %v", shortRes.err, shortRes.took)
	t.Logf("cancelled at 1 ms: %v after %v", cancelledRes.err, cancelledRes.took)
	t.Logf("beside them: %v after %v", otherRes.err, otherRes.took)
	if !errors.Is(shortRes.err, context.DeadlineExceeded) {
		t.Errorf("read past its deadline: got %v, want an error wrapping context.DeadlineExceeded", shortRes.err)
	}
	if !errors.Is(cancelledRes.err, context.Canceled) {
		t.Errorf("cancelled read: got %v, want an error wrapping context.Canceled", cancelledRes.err)
	}
	if otherRes.err != nil {
		t.Errorf("the read beside them: %v", otherRes.err)
	}
	// The round had not left: the errors say the read ended while its requests waited, not that
	// the broker stopped answering.
	for _, tc := range []struct {
		name string
		err  error
		says string
	}{
		{name: "read past its deadline", err: shortRes.err, says: `ListOffsets for topic "t" partition 3: the read timed out while its requests waited to go to broker 0 (`},
		{name: "cancelled read", err: cancelledRes.err, says: `ListOffsets for topic "t" partition 4: the read was cancelled while its requests waited to go to broker 0 (`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ended *ReadEndedError
			if !errors.As(tc.err, &ended) || !strings.Contains(tc.err.Error(), tc.says) {
				t.Errorf("got %v, want a *ReadEndedError that says %q", tc.err, tc.says)
			}
			if strings.Contains(tc.err.Error(), "stopped answering") {
				t.Errorf("%v blames the broker", tc.err)
			}
		})
	}
}

// fakeListOffset is franz-go's answer (not ours) to one ListOffsets entry of topic "t": offset
// and timestamp for timestamp ts (-1 latest, -2 earliest, -3 max timestamp, or milliseconds)
// under isolation.
func fakeListOffset(t *testing.T, cl *kgo.Client, partition int32, ts int64, isolation Isolation) (int64, int64) {
	t.Helper()
	const topic = "t"
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID, req.IsolationLevel = -1, int8(isolation)
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition, rp.CurrentLeaderEpoch, rp.Timestamp = partition, -1, ts
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(context.Background(), cl)
	if err != nil || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 || resp.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("oracle ListOffsets %s/%d at %d: %v %+v", topic, partition, ts, err, resp)
	}
	p := resp.Topics[0].Partitions[0]
	return p.Offset, p.Timestamp
}

// Reads of every kind at once on one leader share its rounds: partition reads under both
// isolation levels, with a timestamp and the max timestamp, topic reads and group reads. Each
// gets exactly what franz-go reads for its own isolation level and timestamp: a shared round
// must not hand a read an answer asked for another lookup or isolation level. Partition 0 has an
// open transaction, so its latest differs between the isolation levels.
func TestMixedReadsShareRoundsExactly(t *testing.T) {
	c := newCluster(t, withOffsetsTopic(), kfake.SeedTopics(4, "t"))
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	for p := int32(0); p < 4; p++ {
		var ts []time.Time
		for i := 0; i <= int(p)+1; i++ {
			ts = append(ts, base.Add(time.Duration(i)*time.Second))
		}
		produceAt(t, c, "t", p, ts...)
		acctest.FakeCommit(t, c, "g", "t", p, int64(p)+1)
	}
	openTransaction(t, c, "t", 0, 3) // offsets 2..4: last stable offset 2, high watermark 5
	at := base.Add(time.Second).UnixMilli()

	oracle := acctest.FakeClient(t, c)
	want := map[Isolation][]PartitionOffsets{}
	for _, iso := range []Isolation{ReadUncommitted, ReadCommitted} {
		for p := int32(0); p < 4; p++ {
			po := PartitionOffsets{Partition: int(p)}
			po.Earliest, _ = fakeListOffset(t, oracle, p, -2, iso)
			po.Latest, _ = fakeListOffset(t, oracle, p, -1, iso)
			if o, _ := fakeListOffset(t, oracle, p, at, iso); o >= 0 {
				po.TimestampOffset = &o
			}
			if o, ts := fakeListOffset(t, oracle, p, -3, iso); o >= 0 {
				po.MaxTimestampOffset, po.MaxTimestamp = &o, &ts
			}
			want[iso] = append(want[iso], po)
		}
	}
	if want[ReadUncommitted][0].Latest != 5 || want[ReadCommitted][0].Latest != 2 {
		t.Fatalf("setup: latest of partition 0 is %d / %d, want 5 (high watermark) / 2 (last stable offset)",
			want[ReadUncommitted][0].Latest, want[ReadCommitted][0].Latest)
	}
	showOffsets := func(ps []PartitionOffsets, withTs, withMax bool) string {
		s := ""
		for _, p := range ps {
			s += fmt.Sprintf("%d:[%d,%d", p.Partition, p.Earliest, p.Latest)
			if withTs {
				s += " ts@" + show(p.TimestampOffset)
			}
			if withMax {
				s += " max@" + show(p.MaxTimestampOffset) + "/" + show(p.MaxTimestamp)
			}
			s += "] "
		}
		return s
	}

	cl := newClient(t, c, 5*time.Second)
	counts := acctest.CountRequests(c)
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	check := func(what, got, want string) {
		if got != want {
			errs <- fmt.Errorf("%s:\n got  %s\n want %s", what, got, want)
		}
	}
	const waves = 5
	for w := 0; w < waves; w++ {
		for _, iso := range []Isolation{ReadUncommitted, ReadCommitted} {
			for p := 0; p < 4; p++ {
				wg.Add(2)
				go func() { // kafka_partition_offsets with max timestamp
					defer wg.Done()
					got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t", Partitions: []int{p}, Isolation: iso, MaxTimestamp: true})
					if err != nil {
						errs <- err
						return
					}
					check(fmt.Sprintf("partition %d, isolation %d, max timestamp", p, iso),
						showOffsets(got, false, true), showOffsets(want[iso][p:p+1], false, true))
				}()
				go func() { // kafka_partition_offsets with timestamp
					defer wg.Done()
					got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t", Partitions: []int{p}, Isolation: iso, TimestampMs: &at})
					if err != nil {
						errs <- err
						return
					}
					check(fmt.Sprintf("partition %d, isolation %d, timestamp", p, iso),
						showOffsets(got, true, false), showOffsets(want[iso][p:p+1], true, false))
				}()
			}
			wg.Add(2)
			go func() { // kafka_topic_offsets
				defer wg.Done()
				got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t", Isolation: iso})
				if err != nil {
					errs <- err
					return
				}
				check(fmt.Sprintf("topic, isolation %d", iso), showOffsets(got, false, false), showOffsets(want[iso], false, false))
			}()
			go func() { // kafka_consumer_group_offsets
				defer wg.Done()
				got, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g", Isolation: iso})
				if err != nil {
					errs <- err
					return
				}
				wantGroup := ""
				for p, po := range want[iso] {
					lag := po.Latest - int64(p) - 1
					wantGroup += fmt.Sprintf("t/%d committed=%d earliest=%d latest=%d lag=%d; ", p, p+1, po.Earliest, po.Latest, lag)
				}
				gotGroup := ""
				for _, gp := range got.Partitions {
					gotGroup += fmt.Sprintf("%s/%d committed=%s earliest=%d latest=%d lag=%s; ",
						gp.Topic, gp.Partition, show(gp.Committed), gp.Earliest, gp.Latest, show(gp.Lag))
				}
				check(fmt.Sprintf("group, isolation %d", iso), gotGroup, wantGroup)
			}()
		}
		wg.Wait()
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("want uncommitted %s", showOffsets(want[ReadUncommitted], true, true))
	t.Logf("want committed   %s", showOffsets(want[ReadCommitted], true, true))
	// One wave is 20 reads of 4 lookups and 2 isolation levels: one round asks at most 8
	// ListOffsets requests (earliest, timestamp, max timestamp, latest per isolation level).
	t.Logf("%d waves: ListOffsets %d", waves, counts()[int16(kmsg.ListOffsets)])
}

// A read that begins while its leader's round is out waits for the next round: it never takes
// an answer asked before it began. Here a record is written after the first read's requests
// reached the broker and before the second read begins: the first read must not count it, the
// second must (the broker's answers reach the client 100 ms late, so the second read begins
// while the first round is out).
func TestReadDuringARoundOutSeesLaterWrites(t *testing.T) {
	dl := &acctest.DelayedListener{Delay: 100 * time.Millisecond}
	c := newCluster(t, kfake.SeedTopics(1, "t"), kfake.ListenFn(dl.Listen))
	producer := acctest.FakeClient(t, c)
	write := func() {
		if err := producer.ProduceSync(context.Background(), &kgo.Record{Topic: "t", Value: []byte("v")}).FirstErr(); err != nil {
			t.Error(err)
		}
	}
	write() // the producer is connected: the next write is one Produce request
	cl := newClient(t, c, 5*time.Second)
	if _, err := cl.PartitionOffsets(context.Background(), "t", 0); err != nil {
		t.Fatal(err) // connected, metadata cached: the next reads go straight to a round
	}

	arrived := make(chan int16, 16) // the API key of each request as the broker takes it
	c.Control(func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		select {
		case arrived <- r.Key():
		default:
		}
		return nil, nil, false
	})
	waitFor := func(key kmsg.Key, n int) {
		for n > 0 {
			if <-arrived == int16(key) {
				n--
			}
		}
	}
	type result struct {
		latest int64
		err    error
	}
	first, second := make(chan result, 1), make(chan result, 1)
	read := func(into chan<- result) {
		po, err := cl.PartitionOffsets(context.Background(), "t", 0)
		into <- result{po.Latest, err}
	}
	go read(first)
	waitFor(kmsg.ListOffsets, 2) // the first round (earliest, latest) is with the broker
	go write()
	waitFor(kmsg.Produce, 1) // the broker takes requests in turn: it has the record before the next
	go read(second)
	r1, r2 := <-first, <-second
	if r1.err != nil || r2.err != nil {
		t.Fatal(r1.err, r2.err)
	}
	if r1.latest != 1 || r2.latest != 2 {
		t.Errorf("latest: first read %d, second read %d; want 1 (asked before the write) and 2 (began after it)", r1.latest, r2.latest)
	}
}

// The broker's answer lacks the partition asked for: an error, not a default offset.
func TestMissingPartitionInAnswerIsAnError(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 3)
	c.ControlKey(int16(kmsg.ListOffsets), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req, _ := r.(*kmsg.ListOffsetsRequest)
		resp := kmsg.NewPtrListOffsetsResponse()
		resp.Version = req.Version
		st := kmsg.NewListOffsetsResponseTopic()
		st.Topic = "t" // the topic, but no partition entry
		resp.Topics = append(resp.Topics, st)
		return resp, nil, true
	})
	cl := newClient(t, c, 2*time.Second)
	got, err := cl.PartitionOffsets(context.Background(), "t", 0)
	if err == nil || !strings.Contains(err.Error(), "has no entry for the partition") {
		t.Fatalf("got %+v, %v; want an error saying the answer lacks the partition", got, err)
	}
}
