package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// switchboard is a dialer that can make a broker's address refuse connections (a broker
// restarting) or stay silent (a paused broker), the way the network shows them. The Client keeps
// its connections for its whole life, so what happens to the connections already open counts as
// much as what happens to new ones: a restart closes them, a pause (SIGSTOP) leaves them open and
// silent.
type switchboard struct {
	t      *testing.T
	silent string // a listener that accepts and never answers

	mu      sync.Mutex
	refused map[string]bool
	paused  map[string]bool
	conns   map[string][]net.Conn
	resumed *sync.Cond
}

func newSwitchboard(t *testing.T) *switchboard {
	s := &switchboard{t: t, silent: acctest.SilentListener(t), refused: map[string]bool{}, paused: map[string]bool{},
		conns: map[string][]net.Conn{}}
	s.resumed = sync.NewCond(&s.mu)
	return s
}

func (s *switchboard) dial(ctx context.Context, network, address string) (net.Conn, error) {
	s.mu.Lock()
	refused, paused := s.refused[address], s.paused[address]
	s.mu.Unlock()
	switch {
	case refused:
		return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
	case paused:
		return (&net.Dialer{}).DialContext(ctx, network, s.silent)
	}
	conn, err := (&net.Dialer{}).DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conns[address] = append(s.conns[address], conn)
	return &switchedConn{Conn: conn, s: s, address: address}, nil
}

// switchedConn holds back what the broker sends while the broker is paused.
type switchedConn struct {
	net.Conn
	s       *switchboard
	address string
}

func (c *switchedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.s.mu.Lock()
	for c.s.paused[c.address] {
		c.s.resumed.Wait()
	}
	c.s.mu.Unlock()
	return n, err
}

// down refuses connections to addrs for d, from now, and closes those open (a restart).
func (s *switchboard) down(d time.Duration, addrs ...string) {
	s.set(s.refused, true, addrs)
	s.mu.Lock()
	for _, a := range addrs {
		for _, c := range s.conns[a] {
			_ = c.Close()
		}
		s.conns[a] = nil
	}
	s.mu.Unlock()
	time.AfterFunc(d, func() { s.set(s.refused, false, addrs) })
}

func (s *switchboard) set(m map[string]bool, v bool, addrs []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range addrs {
		m[a] = v
	}
	s.resumed.Broadcast()
}

func (s *switchboard) client(t *testing.T, bootstrap []string, timeout time.Duration) *Client {
	cl, err := New(Config{BootstrapServers: bootstrap, ClientID: "test", Timeout: timeout, Dial: s.dial})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// readExact reads partition of topic "t" and checks its offsets: earliest 0 (nothing is deleted
// in these tests) and latest.
func readExact(t *testing.T, cl *Client, partition int, latest int64) time.Duration {
	t.Helper()
	start := time.Now()
	got, err := cl.PartitionOffsets(context.Background(), "t", partition)
	if err != nil {
		t.Fatalf("read after %s: %v", time.Since(start), err)
	}
	if got.Earliest != 0 || got.Latest != latest {
		t.Fatalf("got %d/%d, want 0/%d", got.Earliest, got.Latest, latest)
	}
	return time.Since(start)
}

// On kfake, a single-node cluster that refuses connections for a moment (a graceful
// restart) after it answered once costs time, not an error. At first contact the same refusal
// fails at once (TestUnreachable): that is the typo case.
func TestRestartAfterContactIsRetried(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 5)
	sb := newSwitchboard(t)
	cl := sb.client(t, c.ListenAddrs(), 10*time.Second)
	readExact(t, cl, 0, 5)

	sb.down(1500*time.Millisecond, c.ListenAddrs()...)
	took := readExact(t, cl, 0, 5)
	t.Logf("read during a 1.5 s restart took %s", took)
}

// The whole cluster refusing for a moment (every broker restarted at once), after contact.
func TestWholeClusterRestartAfterContactIsRetried(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(3, "t"))
	produce(t, c, "t", 2, 4)
	sb := newSwitchboard(t)
	cl := sb.client(t, c.ListenAddrs(), 10*time.Second)
	readExact(t, cl, 2, 4)

	sb.down(1500*time.Millisecond, c.ListenAddrs()...)
	readExact(t, cl, 2, 4)
}

// A bootstrap server that accepts TCP and never answers, listed first, must not cost a
// share of the timeout: the next server is tried raceDelay later.
func TestSilentBootstrapServerIsRaced(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 3)
	silent := acctest.SilentListener(t)
	for i := 0; i < 4; i++ { // the race shuffles: the silent server goes first about half the time
		cl, err := New(Config{BootstrapServers: []string{silent, acctest.SilentListener(t), c.ListenAddrs()[0]},
			Timeout: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		took := readExact(t, cl, 0, 3)
		cl.Close()
		if took > 5*time.Second { // a hang check: a share of the timeout would be 10 s
			t.Fatalf("read %d took %s with two silent bootstrap servers; want about a second", i, took)
		}
		t.Logf("read %d: %s", i, took)
	}
}

// A broker that answered, then accepts connections and stays silent past the timeout (SIGSTOP):
// "Kafka read timed out" that says it stopped answering, not "is this a Kafka listener?"; after
// it resumes, the next read is exact.
func TestPausedBrokerTimesOutThenRecovers(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 2)
	sb := newSwitchboard(t)
	cl := sb.client(t, c.ListenAddrs(), 2*time.Second)
	readExact(t, cl, 0, 2)

	sb.set(sb.paused, true, c.ListenAddrs())
	start := time.Now()
	_, err := cl.PartitionOffsets(context.Background(), "t", 0)
	took := time.Since(start)
	t.Logf("paused: %v", err)
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "stopped answering") ||
		strings.Contains(err.Error(), "is this a Kafka listener") {
		t.Fatalf("got %v; want a TimeoutError saying the broker stopped answering", err)
	}
	if took > 3*time.Second {
		t.Fatalf("took %s, want within the 2 s timeout + 1 s", took)
	}
	sb.set(sb.paused, false, c.ListenAddrs())
	readExact(t, cl, 0, 2)
}

// A retriable answer that outlasts the timeout names the operation, the partition, the
// broker, and Kafka's current name of the error.
func TestPersistentNotLeaderTimesOut(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(1), kfake.SeedTopics(2, "t"))
	acctest.AnswerListOffsets(c, -1, acctest.ErrorCode(6 /* NOT_LEADER_OR_FOLLOWER */))
	cl := newClient(t, c, 1500*time.Millisecond)
	_, err := cl.PartitionOffsets(context.Background(), "t", 1)
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("got %T %v, want *TimeoutError", err, err)
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{`topic "t" partition 1: broker 0 (` + c.ListenAddrs()[0] + ") answered NOT_LEADER_OR_FOLLOWER (error code 6)", "within the timeout of 1.5s"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q: %s", want, msg)
		}
	}
	for _, raw := range []string{"NOT_LEADER_FOR_PARTITION", "kafka.(*Client)", "send messages"} {
		if strings.Contains(msg, raw) {
			t.Errorf("error has kafka-go's text %q: %s", raw, msg)
		}
	}
}

// Each wait between attempts lies in the upper half of its step (50 ms doubling to 1 s, then 1 s),
// the random source's lowest and highest draws reach both ends, and two reads with their own
// random draws wait differently: they do not retry in lockstep against a restarting broker.
func TestBackoffJitter(t *testing.T) {
	steps := []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond,
		400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second, time.Second}
	tests := []struct {
		name   string
		randN  func(n int64) int64
		lo, hi func(step time.Duration) time.Duration // the bounds of the wait of each step
	}{
		{name: "lowest draw", randN: func(int64) int64 { return 0 },
			lo: func(s time.Duration) time.Duration { return s / 2 }, hi: func(s time.Duration) time.Duration { return s / 2 }},
		{name: "highest draw", randN: func(n int64) int64 { return n - 1 },
			lo: func(s time.Duration) time.Duration { return s }, hi: func(s time.Duration) time.Duration { return s }},
		{name: "seeded draws", randN: rand.New(rand.NewPCG(1, 2)).Int64N,
			lo: func(s time.Duration) time.Duration { return s / 2 }, hi: func(s time.Duration) time.Duration { return s }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBackoff(tt.randN)
			for i, step := range steps {
				if w := b.next(); w < tt.lo(step) || w > tt.hi(step) || w > backoffMax {
					t.Errorf("wait %d: %s, want %s to %s (at most %s)", i, w, tt.lo(step), tt.hi(step), backoffMax)
				}
			}
		})
	}
	t.Run("two reads", func(t *testing.T) {
		a, b := newBackoff(rand.New(rand.NewPCG(1, 2)).Int64N), newBackoff(rand.New(rand.NewPCG(3, 4)).Int64N)
		same := 0
		for range steps {
			if a.next() == b.next() {
				same++
			}
		}
		if same > 0 {
			t.Errorf("%d of %d waits are the same in both reads", same, len(steps))
		}
	})
}

// A broker advertised under a host name that does not resolve here (its advertised.listeners
// name a host of a Docker network or behind a VPN) fails a read as fast as a refused bootstrap
// server does: once an answer requested during the read names the address. The counts show it:
// one attempt (one Metadata request) and a dial per lookup at most, under a timeout of 10
// minutes that a regression would wait out.

// forever is a timeout no test waits for: a read that retries instead of failing hangs until go
// test's own -timeout.
const forever = 10 * time.Minute

// unresolvable is a cluster of two brokers: broker 1 advertises host:port and leads partition 0
// of "t" (3 records), broker 0 (the bootstrap server) leads partition 1.
type unresolvable struct {
	c                     *kfake.Cluster
	bootstrap, advertised string     // broker 0's address, broker 1's as advertised
	metadata              func() int // the Metadata requests so far, on every broker
}

func unresolvableCluster(t *testing.T, host string) unresolvable {
	t.Helper()
	c := newCluster(t, kfake.NumBrokers(2), kfake.SeedTopics(2, "t"), acctest.AdvertisedHost(1, host))
	for p, node := range []int32{0, 0} { // both on broker 0 while the records are written
		if err := c.MoveTopicPartition("t", int32(p), node); err != nil {
			t.Fatal(err)
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()[0]), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := range 3 {
		r := &kgo.Record{Topic: "t", Partition: 0, Value: fmt.Appendf(nil, "%d", i)}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.MoveTopicPartition("t", 0, 1); err != nil {
		t.Fatal(err)
	}
	return unresolvable{c: c, bootstrap: c.ListenAddrs()[0], advertised: c.ListenAddrs()[1], metadata: metadataCounter(c)}
}

// dialCounter is a Config.Dial through the system's resolver that counts the dials per address.
type dialCounter struct {
	mu     sync.Mutex
	counts map[string]int
	fail   func(address string) error // when set and not nil for address, the dial fails with it
}

func (d *dialCounter) dial(ctx context.Context, network, address string) (net.Conn, error) {
	d.mu.Lock()
	if d.counts == nil {
		d.counts = map[string]int{}
	}
	d.counts[address]++
	d.mu.Unlock()
	if d.fail != nil {
		if err := d.fail(address); err != nil {
			return nil, err
		}
	}
	return (&net.Dialer{}).DialContext(ctx, network, address)
}

func (d *dialCounter) count(address string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.counts[address]
}

func dialCountingClient(t *testing.T, bootstrap string, timeout time.Duration, d *dialCounter) *Client {
	t.Helper()
	cl, err := New(Config{BootstrapServers: []string{bootstrap}, ClientID: "test", Timeout: timeout, Dial: d.dial})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// metadataCounter counts the Metadata requests the cluster receives, on every broker.
func metadataCounter(c *kfake.Cluster) func() int {
	counts := acctest.CountRequestsByBroker(c, int16(kmsg.Metadata))
	return func() int {
		n := 0
		for _, v := range counts() {
			n += v
		}
		return n
	}
}

func TestUnresolvableAdvertisedHostFailsAtOnce(t *testing.T) {
	f := unresolvableCluster(t, acctest.UnresolvableHost(t, "broker-1.invalid"))
	ctx := context.Background()
	names := fmt.Sprintf(`the cluster's metadata gives broker 1 the address %s, and the host name "broker-1.invalid" `+
		"does not resolve from this machine (no such host)", f.advertised)
	for _, tc := range []struct {
		name     string
		read     func(cl *Client) error
		op       string
		maxDials int // one per lookup asked of the broker (earliest, latest), sent at once
	}{
		{
			name: "partition offsets",
			read: func(cl *Client) error { _, err := cl.PartitionOffsets(ctx, "t", 0); return err },
			op:   `ListOffsets (earliest) for topic "t" partition 0`, maxDials: 2,
		},
		{
			name: "every topic's offsets",
			read: func(cl *Client) error { _, _, err := cl.TopicsOffsets(ctx, TopicsOffsetsRequest{}); return err },
			op:   `ListOffsets (earliest) for topic "t" partition 0`, maxDials: 2,
		},
		{
			// No __consumer_offsets in kfake's metadata: ListGroups on each broker decides.
			name: "a group's offsets",
			read: func(cl *Client) error { _, err := cl.GroupOffsets(ctx, GroupOffsetsRequest{GroupID: "g"}); return err },
			op:   `ListGroups on broker 1 for group "g"`, maxDials: 1,
		},
		{
			name: "every group",
			read: func(cl *Client) error { _, err := cl.ConsumerGroups(ctx, ConsumerGroupsRequest{}); return err },
			op:   "ListGroups", maxDials: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dials := &dialCounter{}
			cl := dialCountingClient(t, f.bootstrap, forever, dials)
			before := f.metadata()
			err := tc.read(cl)
			var ue *UnresolvableBrokerError
			if !errors.As(err, &ue) || err.Error() != tc.op+": "+names {
				t.Fatalf("got %v;\nwant *UnresolvableBrokerError %q", err, tc.op+": "+names)
			}
			if ue.BrokerID != 1 || ue.Address != f.advertised {
				t.Errorf("broker %d at %q, want broker 1 at %q", ue.BrokerID, ue.Address, f.advertised)
			}
			if got := f.metadata() - before; got != 1 {
				t.Errorf("%d Metadata requests, want 1: the answer of the read's first attempt is fresh", got)
			}
			if got := dials.count(f.advertised); got < 1 || got > tc.maxDials {
				t.Errorf("%d dials to %s, want 1 to %d", got, f.advertised, tc.maxDials)
			}
		})
	}
}

// A name from a cached layout is asked of the cluster again before it is believed: the broker
// may have moved, or its leaderships. One more Metadata request, then the same error at once;
// and once the partition's leader is broker 0, whose address resolves, the read succeeds.
func TestUnresolvableHostFromCachedMetadataIsAskedAgain(t *testing.T) {
	f := unresolvableCluster(t, acctest.UnresolvableHost(t, "broker-1.invalid"))
	dials := &dialCounter{}
	cl := dialCountingClient(t, f.bootstrap, forever, dials)
	ctx := context.Background()
	for i, want := range []struct{ metadata, maxDials int }{{metadata: 1, maxDials: 2}, {metadata: 2, maxDials: 4}} {
		_, err := cl.PartitionOffsets(ctx, "t", 0)
		var ue *UnresolvableBrokerError
		if !errors.As(err, &ue) {
			t.Fatalf("read %d: got %v, want *UnresolvableBrokerError", i+1, err)
		}
		if got := f.metadata(); got != want.metadata {
			t.Errorf("after read %d: %d Metadata requests, want %d", i+1, got, want.metadata)
		}
		if got := dials.count(f.advertised); got < i+1 || got > want.maxDials {
			t.Errorf("after read %d: %d dials to %s, want %d to %d", i+1, got, f.advertised, i+1, want.maxDials)
		}
	}
	if err := f.c.MoveTopicPartition("t", 0, 0); err != nil {
		t.Fatal(err)
	}
	got, err := cl.PartitionOffsets(ctx, "t", 0)
	if err != nil || got.Earliest != 0 || got.Latest != 3 {
		t.Fatalf("after the move: got %+v, %v; want earliest 0, latest 3 from broker 0", got, err)
	}
	if n := f.metadata(); n != 3 {
		t.Errorf("after the move: %d Metadata requests, want 3 (the cached layout, then a fresh one)", n)
	}
}

// A resolver that fails for the moment (SERVFAIL, no answer in time) may answer on the next
// attempt: retried with fresh metadata until the timeout, and then reported as a timeout.
func TestTemporaryResolverFailureIsRetried(t *testing.T) {
	const host = "broker-1.invalid"
	for _, tc := range []struct {
		name string
		err  *net.DNSError
	}{
		{name: "temporary", err: &net.DNSError{Err: "server misbehaving", Name: host, IsTemporary: true}},
		{name: "timeout", err: &net.DNSError{Err: "i/o timeout", Name: host, IsTimeout: true, IsTemporary: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := unresolvableCluster(t, host)
			dials := &dialCounter{fail: func(address string) error {
				if address == f.advertised {
					return &net.OpError{Op: "dial", Net: "tcp", Err: tc.err}
				}
				return nil
			}}
			cl := dialCountingClient(t, f.bootstrap, time.Second, dials)
			_, err := cl.PartitionOffsets(context.Background(), "t", 0)
			var te *TimeoutError
			if !errors.As(err, &te) || !strings.Contains(err.Error(), "host name lookup failed ("+tc.err.Err+")") {
				t.Fatalf("got %v; want a TimeoutError naming the lookup's failure", err)
			}
			if errors.As(err, new(*UnresolvableBrokerError)) {
				t.Fatalf("got %v; a resolver's passing failure is not a name that does not resolve", err)
			}
			if m, d := f.metadata(), dials.count(f.advertised); m < 2 || d < 2 {
				t.Fatalf("%d Metadata requests and %d dials: want the read retried (2 or more of each)", m, d)
			}
		})
	}
}

// A bootstrap server whose name does not resolve fails the read at once, as a refused one does
// (first contact: a wrong address does not become right by waiting), after one dial.
func TestUnresolvableBootstrapServerFailsAtOnce(t *testing.T) {
	address := acctest.UnresolvableHost(t, "kafka-1.invalid") + ":9092"
	dials := &dialCounter{}
	cl := dialCountingClient(t, address, forever, dials)
	_, err := cl.PartitionOffsets(context.Background(), "t", 0)
	var un *UnreachableError
	want := "cannot reach any bootstrap server: kafka-1.invalid:9092: host name lookup failed (no such host)"
	if !errors.As(err, &un) || err.Error() != want {
		t.Fatalf("got %v;\nwant *UnreachableError %q", err, want)
	}
	if n := dials.count(address); n != 1 {
		t.Errorf("%d dials to %s, want 1", n, address)
	}
}

// When the timeout cuts the last attempt short, the error says what failed the attempt before it
// too: a read whose every ListOffsets connection breaks, and whose last Metadata request the
// deadline cuts, must not blame only the Metadata request.
func TestTimeoutSaysWhatFailedBeforeTheCutAttempt(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 1)
	cl := newClient(t, c, 2*time.Second)
	readExact(t, cl, 0, 1) // a broker has answered: a timeout now is a TimeoutError

	broken := &ConnectionError{Op: "ListOffsets (earliest)", Broker: "broker 0", BrokerID: 0,
		Problem: "connection closed by broker", Err: io.ErrUnexpectedEOF}
	cut := &ConnectionError{Op: "Metadata", Broker: "broker 0", BrokerID: 0,
		Problem: "stopped answering", Err: os.ErrDeadlineExceeded}
	tests := []struct {
		name       string
		last       error
		wantBefore error
	}{
		{name: "last attempt cut by the timeout", last: cut, wantBefore: broken},
		{name: "last attempt failed by itself", last: broken, wantBefore: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			attempts := 0
			err := cl.cluster.withRetries(ctx, func(time.Time, time.Time) error {
				attempts++
				if attempts == 1 {
					return broken
				}
				<-ctx.Done()
				return tc.last
			})
			var te *TimeoutError
			if !errors.As(err, &te) {
				t.Fatalf("got %v; want a TimeoutError", err)
			}
			if !errors.Is(te.Last, tc.last) || !errors.Is(te.Before, tc.wantBefore) {
				t.Errorf("Last %v, Before %v; want Last %v, Before %v", te.Last, te.Before, tc.last, tc.wantBefore)
			}
			if !strings.Contains(err.Error(), "ListOffsets (earliest)") {
				t.Errorf("error %q does not name the ListOffsets request that kept failing", err)
			}
		})
	}
}
