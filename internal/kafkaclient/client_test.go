package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/sasl"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/broker"
)

// Close while a round lingers and while one is out: Close returns, the reads under way fail at
// once with errClosed (before, they retried until their own timeout, Metadata failing on the
// closed pool), and no goroutine of the Client is left (TestMain's goleak).
func TestCloseWhileRoundsLingerOrAreOut(t *testing.T) {
	for _, out := range []bool{false, true} {
		t.Run(fmt.Sprintf("out=%v", out), func(t *testing.T) {
			// Answers take 300 ms: no read can end before Close, even on a loaded machine.
			dl := &acctest.DelayedListener{Delay: 300 * time.Millisecond}
			c := newCluster(t, kfake.SeedTopics(12, "t"), kfake.ListenFn(dl.Listen))
			cl, err := New(Config{BootstrapServers: c.ListenAddrs(), Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			var warm sync.WaitGroup
			for i := 0; i < 10; i++ { // one round of 10: the next lingers up to lingerExpected for 10 reads
				warm.Go(func() {
					if _, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t", Partitions: []int{i}}); err != nil {
						t.Error(err)
					}
				})
			}
			warm.Wait()
			var wg sync.WaitGroup
			errs := make([]error, 3)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = cl.Offsets(context.Background(), OffsetsRequest{Topic: "t", Partitions: []int{i}})
				}()
			}
			// At 2 ms the round lingers (up to lingerExpected: it has 3 of the 10 reads it
			// expects); at 50 ms it is out.
			time.Sleep(map[bool]time.Duration{false: 2 * time.Millisecond, true: 50 * time.Millisecond}[out])
			cl.Close()
			wg.Wait()
			for i, err := range errs {
				if !errors.Is(err, errClosed) {
					t.Errorf("read %d under way at Close: got %v, want errClosed", i, err)
				}
			}
			// A read after Close, its metadata cached, fails the same way.
			if _, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t", Partitions: []int{0}}); !errors.Is(err, errClosed) {
				t.Errorf("read after Close: got %v, want errClosed", err)
			}
		})
	}
}

// Reads that keep starting while Close runs: no read joins the WaitGroup that Close waits on
// after Close began (the race detector reported WaitGroup.Add racing with Wait), every read ends,
// and none is left with a round that has no flusher.
func TestCloseDuringReads(t *testing.T) {
	c := lingerCluster(t)
	for i := 0; i < 20; i++ {
		cl, err := New(Config{BootstrapServers: c.ListenAddrs(), Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		wave(t, cl, 10)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					_, err := readP(context.Background(), cl, g)
					if err != nil && !errors.Is(err, errClosed) {
						t.Errorf("read of partition %d: %v", g, err)
					}
				}
			}()
		}
		time.Sleep(time.Duration(i%7) * time.Millisecond)
		cl.Close()
		close(stop)
		wg.Wait()
	}
}

// Close is one fact across the layers: a request that the brokers layer refuses after Close (the
// pool closed) is errClosed to this package, as a read that Close ended between requests is.
func TestClosedPoolIsErrClosed(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	cl, err := New(Config{BootstrapServers: c.ListenAddrs(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cl.Close()
	if _, err := cl.cluster.brokers.Get(context.Background(), c.ListenAddrs()[0]); !errors.Is(err, errClosed) {
		t.Errorf("a connection asked for after Close: got %v, want errClosed", err)
	}
}

// A request waiting on a connection that Pool.Drop closes (a group read asking its coordinator
// again) fails with ErrDropped, a connection loss another attempt retries, never with "the
// provider's Kafka client was closed".
func TestDroppedConnectionIsNotClosedClient(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	held, release := make(chan struct{}), make(chan struct{})
	c.ControlKey(int16(kmsg.ListGroups), func(kmsg.Request) (kmsg.Response, error, bool) {
		close(held)
		<-release
		return nil, nil, false
	})
	t.Cleanup(func() { close(release) })
	cl, err := New(Config{BootstrapServers: c.ListenAddrs(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	addr := c.ListenAddrs()[0]
	done := make(chan error, 1)
	go func() {
		_, err := cl.cluster.brokers.RoundTrip(context.Background(), addr, &kmsg.ListGroupsRequest{})
		done <- err
	}()
	<-held
	cl.cluster.brokers.Drop(addr)
	err = <-done
	if !errors.Is(err, broker.ErrDropped) || errors.Is(err, errClosed) || !isRetriable(err) {
		t.Errorf("got %v; want ErrDropped, retriable, not errClosed", err)
	}
}

// countedMechanism counts the SASL logins a mechanism starts: one per connection.
type countedMechanism struct {
	sasl.Mechanism
	logins atomic.Int32
}

func (m *countedMechanism) Start(ctx context.Context) (sasl.StateMachine, []byte, error) {
	m.logins.Add(1)
	return m.Mechanism.Start(ctx)
}

// On the real broker: 200 kafka_partition_offsets reads of one topic over SASL/SCRAM and
// TLS, 10 at a time through one Client (one provider process), cost one TCP connection, one TLS
// handshake and one SCRAM login per broker (plus one to the bootstrap address when the broker
// advertises another name for itself), not one per read.
func TestAccOneLoginPerBroker(t *testing.T) {
	auth := acctest.Auth(t)
	k := acctest.Connect(t)
	k.RequireSCRAM()
	topic := k.CreateTopic(acctest.TopicName(t, "logins"), 20, nil)
	k.Produce(topic, 3, 5)

	tlsCfg, err := NewTLSConfig(TLSConfig{CACert: acctest.ReadFile(t, auth.CAFile)})
	if err != nil {
		t.Fatal(err)
	}
	mech, err := NewSASL(context.Background(), SASLConfig{Mechanism: MechanismScramSHA512, Username: auth.Username, Password: auth.Password})
	if err != nil {
		t.Fatal(err)
	}
	counted := &countedMechanism{Mechanism: mech.mech()}
	var dials atomic.Int32
	cl, err := New(Config{
		BootstrapServers: []string{auth.SASLSSL}, Timeout: 30 * time.Second, TLS: tlsCfg, SASL: &SASL{mechanism: counted},
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			dials.Add(1)
			return (&net.Dialer{}).DialContext(ctx, network, address)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	start := time.Now()
	readPartitionsConcurrently(t, cl, topic, 200, 20, 10)
	got, err := cl.PartitionOffsets(context.Background(), topic, 3)
	if err != nil || got.Earliest != 0 || got.Latest != 5 {
		t.Fatalf("partition 3: got %+v, %v; want 0/5", got, err)
	}
	t.Logf("201 reads in %s: %d connections (TLS handshakes), %d SCRAM logins", time.Since(start), dials.Load(), counted.logins.Load())
	if n := dials.Load(); n > 2 { // one broker, plus the bootstrap address if it is spelled differently
		t.Errorf("opened %d connections for one broker; want 1 (2 if the bootstrap address differs from the advertised one)", n)
	}
	if counted.logins.Load() != dials.Load() {
		t.Errorf("%d logins on %d connections; want one per connection", counted.logins.Load(), dials.Load())
	}
}
