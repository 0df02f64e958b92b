package kafkaclient

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// One bad bootstrap server beside a good one: kafka-go shuffles the list and would use the bad
// one on about half of the connects. Every read must succeed, whichever comes first.
func TestBadBootstrapServerIsSkipped(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 2)
	for _, tc := range []struct{ name, bad string }{
		{"silent", acctest.SilentListener(t)},
		{"closes", acctest.RespondingListener(t, nil)},
		{"HTTP", acctest.RespondingListener(t, acctest.HTTPResponse)},
		{"refused", acctest.ClosedPort(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i < 6; i++ {
				cl, err := New(Config{BootstrapServers: []string{tc.bad, c.ListenAddrs()[0]}, Timeout: 4 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				got, err := cl.PartitionOffsets(context.Background(), "t", 0)
				cl.Close()
				if err != nil || got.Latest != 2 {
					t.Fatalf("read %d: got %+v, %v; want 0/2 from the good server", i, got, err)
				}
			}
		})
	}
}

func TestAllBootstrapServersBad(t *testing.T) {
	silent, refused := acctest.SilentListener(t), acctest.ClosedPort(t)
	cl, err := New(Config{BootstrapServers: []string{silent, refused}, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	start := time.Now()
	_, err = cl.PartitionOffsets(context.Background(), "t", 0)
	var un *UnreachableError
	if !errors.As(err, &un) || !strings.Contains(err.Error(), silent+": accepted the TCP connection but never answered") ||
		!strings.Contains(err.Error(), refused+": connection refused") {
		t.Fatalf("got %v; want UnreachableError naming both servers and what each did", err)
	}
	if elapsed := time.Since(start); elapsed > 4*time.Second {
		t.Fatalf("took %s, want within the 2s timeout + 2s", elapsed)
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

// The partition's leader is advertised at an address this client cannot reach (a wrong
// advertised.listeners): retried until the timeout, then reported with the hint.
func TestUnreachableLeaderNamesAdvertisedListeners(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(2), kfake.SeedTopics(4, "t"))
	addrs := c.ListenAddrs()
	// Bootstrap through broker 0 only; refuse connections to broker 1, which leads some partitions.
	var mu sync.Mutex
	blocked := addrs[1]
	cl, err := New(Config{
		BootstrapServers: addrs[:1], Timeout: 2 * time.Second,
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			mu.Lock()
			defer mu.Unlock()
			if address == blocked {
				return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
			}
			return (&net.Dialer{}).DialContext(ctx, network, address)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var partition = -1
	for p := int32(0); p < 4; p++ {
		if c.LeaderFor("t", p) == 1 {
			partition = int(p)
		}
	}
	if partition < 0 { // kfake places partitions at random: give broker 1 one to lead
		if err := c.MoveTopicPartition("t", 0, 1); err != nil {
			t.Fatal(err)
		}
		partition = 0
	}
	_, err = cl.PartitionOffsets(context.Background(), "t", partition)
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "advertised.listeners") {
		t.Fatalf("got %v; want a TimeoutError pointing at advertised.listeners", err)
	}
}

func TestUnknownErrorCodeIsNamed(t *testing.T) {
	e := &BrokerError{Op: "ListOffsets (latest)", Topic: "t", Partition: 0, Code: 9999}
	if want := "ListOffsets (latest) for topic \"t\" partition 0: broker answered an error code unknown to this provider (error code 9999)"; !strings.HasPrefix(e.Error(), want) {
		t.Fatalf("got %q, want it to start with %q", e.Error(), want)
	}
}

// A broker that answers earliest 10 and latest 5 contradicts itself: retried, then an error that
// says so, never the two numbers.
func TestEarliestAboveLatestIsAnError(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	acctest.AnswerListOffsets(c, -1, func(rp kmsg.ListOffsetsRequestTopicPartition) (int16, int64) {
		if rp.Timestamp == -2 {
			return 0, 10
		}
		return 0, 5
	})
	cl := newClient(t, c, 2*time.Second)
	got, err := cl.PartitionOffsets(context.Background(), "t", 0)
	if err == nil || !strings.Contains(err.Error(), "the broker's offsets contradict each other (earliest 10, latest 5)") {
		t.Fatalf("got %+v, %v; want an error about earliest above latest", got, err)
	}
}
