package kafkaclient

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

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

// Case C12 on kfake: a single-node cluster that refuses connections for a moment (a graceful
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

// Case C13: a bootstrap server that accepts TCP and never answers, listed first, must not cost a
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

// Case C18: a retriable answer that outlasts the timeout names the operation, the partition, the
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
