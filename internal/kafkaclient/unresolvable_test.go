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

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

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
			read: func(cl *Client) error { _, err := cl.TopicsOffsets(ctx, TopicsOffsetsRequest{}); return err },
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
	for i, want := range []struct{ metadata, maxDials int }{{1, 2}, {2, 4}} {
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
		{"temporary", &net.DNSError{Err: "server misbehaving", Name: host, IsTemporary: true}},
		{"timeout", &net.DNSError{Err: "i/o timeout", Name: host, IsTimeout: true, IsTemporary: true}},
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
