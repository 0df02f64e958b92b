package kafkaclient

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// These tests run against franz-go's in-process kfake cluster: fast, and able to inject faults
// that a real broker cannot be made to produce on demand. The acceptance tests in
// internal/provider check the same behaviour against a real Apache Kafka broker.

func newCluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	return acctest.Fake(t, opts...)
}

func newClient(t *testing.T, c *kfake.Cluster, timeout time.Duration) *Client {
	t.Helper()
	cl, err := New(Config{BootstrapServers: c.ListenAddrs(), ClientID: "test", Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// produce writes n records to topic/partition through franz-go (not our code).
func produce(t *testing.T, c *kfake.Cluster, topic string, partition int32, n int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := 0; i < n; i++ {
		r := &kgo.Record{Topic: topic, Partition: partition, Value: []byte("v")}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPartitionOffsetsEmptyThenOneRecord(t *testing.T) { // case C1
	c := newCluster(t, kfake.SeedTopics(1, "t1"))
	cl := newClient(t, c, 5*time.Second)

	got, err := cl.PartitionOffsets(context.Background(), "t1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got != (PartitionOffsets{Earliest: 0, Latest: 0}) {
		t.Fatalf("empty partition: got %+v, want 0/0", got)
	}
	produce(t, c, "t1", 0, 1)
	got, err = cl.PartitionOffsets(context.Background(), "t1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got != (PartitionOffsets{Earliest: 0, Latest: 1}) {
		t.Fatalf("after one record: got %+v, want 0/1", got)
	}
}

// TestRequestsPerRead pins what one read of a partition's bounds costs on the wire, on a new
// client: one Metadata request for the one topic, one ListOffsets each for the earliest and the
// latest offset, and one ApiVersions per connection. The bootstrap server is the leader here
// (kfake advertises the address it listens on), so one connection carries all of it.
func TestRequestsPerRead(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(3, "counted"))
	produce(t, c, "counted", 1, 5)
	counts := acctest.CountRequests(c)
	cl, dials := countingClient(t, c)

	got, err := cl.PartitionOffsets(context.Background(), "counted", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got != (PartitionOffsets{Partition: 1, Earliest: 0, Latest: 5}) {
		t.Fatalf("got %+v, want 0/5", got)
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("opened %d connections, want 1 (the bootstrap server, which leads the partition)", n)
	}
	expectRequests(t, counts, dials, map[kmsg.Key]int{kmsg.Metadata: 1, kmsg.ListOffsets: 2})
}

func equalCounts(a, b map[int16]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// failListOffsets makes the next n ListOffsets requests close the connection (n < 0: all).
func failListOffsets(c *kfake.Cluster, n int) {
	var mu sync.Mutex
	c.ControlKey(int16(kmsg.ListOffsets), func(kmsg.Request) (kmsg.Response, error, bool) {
		mu.Lock()
		defer mu.Unlock()
		if n == 0 {
			c.DropControl()
			return nil, nil, false
		}
		n--
		c.KeepControl()
		return nil, errors.New("injected: connection closed by broker"), true
	})
}

func TestTransportFailureIsAnErrorNeverZero(t *testing.T) { // case C10
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 3)
	failListOffsets(c, -1)
	cl := newClient(t, c, 2*time.Second)

	start := time.Now()
	got, err := cl.PartitionOffsets(context.Background(), "t", 0)
	if err == nil {
		t.Fatalf("got offsets %+v from a broker that closed every ListOffsets connection; want an error", got)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second+2*time.Second {
		t.Fatalf("took %s, want within the 2s timeout (+2s)", elapsed)
	}
	if !strings.Contains(err.Error(), "ListOffsets (earliest)") || !strings.Contains(err.Error(), "2s") {
		t.Fatalf("error does not say what failed and that the timeout ran out: %v", err)
	}
}

func TestTransportFailureIsRetried(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 3)
	failListOffsets(c, 2)
	cl := newClient(t, c, 5*time.Second)

	got, err := cl.PartitionOffsets(context.Background(), "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got != (PartitionOffsets{Earliest: 0, Latest: 3}) {
		t.Fatalf("got %+v, want 0/3 after two lost requests were retried", got)
	}
}

func TestRetriableBrokerErrorIsRetried(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 4)
	acctest.AnswerListOffsets(c, 3, acctest.ErrorCode(6 /* NOT_LEADER_OR_FOLLOWER */))
	cl := newClient(t, c, 5*time.Second)

	got, err := cl.PartitionOffsets(context.Background(), "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got != (PartitionOffsets{Earliest: 0, Latest: 4}) {
		t.Fatalf("got %+v, want 0/4", got)
	}
}

func TestNonRetriableBrokerErrorStopsAtOnce(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	seen := acctest.AnswerListOffsets(c, -1, acctest.ErrorCode(29 /* TOPIC_AUTHORIZATION_FAILED */))
	cl := newClient(t, c, 5*time.Second)

	_, err := cl.PartitionOffsets(context.Background(), "t", 0)
	var (
		be *BrokerError
		te *TimeoutError
	)
	if !errors.As(err, &be) || be.Code != 29 || errors.As(err, &te) {
		t.Fatalf("got %v, want a BrokerError with code 29 reported at once", err)
	}
	if seen() != 2 {
		t.Fatalf("sent %d ListOffsets requests, want 2: earliest and latest, sent together, and no retry of an authorization failure", seen())
	}
	if !strings.Contains(err.Error(), ") answered TOPIC_AUTHORIZATION_FAILED (error code 29)") {
		t.Fatalf("error does not name the broker's answer: %v", err)
	}
}

func TestUnknownTopicIsNotCreated(t *testing.T) { // case C3 on kfake; the real broker test is in provider
	c := newCluster(t, kfake.AllowAutoTopicCreation(), kfake.SeedTopics(1, "exists"))
	cl := newClient(t, c, 5*time.Second)

	_, err := cl.PartitionOffsets(context.Background(), "typo-topic", 0)
	var tnf *TopicNotFoundError
	if !errors.As(err, &tnf) || tnf.Topic != "typo-topic" {
		t.Fatalf("got %v, want TopicNotFoundError for typo-topic", err)
	}
	if c.LeaderFor("typo-topic", 0) != -1 {
		t.Fatal("reading offsets created the topic typo-topic")
	}
}

func TestPartitionOutOfRange(t *testing.T) { // case C4
	c := newCluster(t, kfake.SeedTopics(3, "three"))
	cl := newClient(t, c, 5*time.Second)

	_, err := cl.PartitionOffsets(context.Background(), "three", 7)
	var oor *PartitionOutOfRangeError
	if !errors.As(err, &oor) || oor.Partitions != 3 || oor.Partition != 7 {
		t.Fatalf("got %v, want PartitionOutOfRangeError(7 of 3)", err)
	}
	if want := `topic "three" has 3 partition(s) (0 to 2); partition 7 does not exist`; err.Error() != want {
		t.Fatalf("got %q, want %q", err.Error(), want)
	}
}

func TestUnreachable(t *testing.T) { // case C5 (a) and (b)
	closed := acctest.ClosedPort(t)
	silent := acctest.SilentListener(t)
	for _, tc := range []struct {
		name, addr, want string
	}{
		{"closed port", closed, "connection refused"},
		{"silent listener", silent, "never answered the Kafka handshake"},
		{"HTTP server", acctest.RespondingListener(t, acctest.HTTPResponse), "answered with HTTP"},
		{"TLS server", acctest.RespondingListener(t, acctest.TLSAlert), "answered with TLS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, err := New(Config{BootstrapServers: []string{tc.addr}, Timeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			start := time.Now()
			_, err = cl.PartitionOffsets(context.Background(), "t", 0)
			elapsed := time.Since(start)
			var un *UnreachableError
			if !errors.As(err, &un) {
				t.Fatalf("got %v, want UnreachableError", err)
			}
			if want := "cannot reach any bootstrap server"; !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error %q does not start with %q", err, want)
			}
			if !strings.Contains(err.Error(), tc.addr) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not name %s and %q", err, tc.addr, tc.want)
			}
			if elapsed > 4*time.Second {
				t.Fatalf("took %s, want within the 2s timeout + 2s", elapsed)
			}
		})
	}
}

// withOffsetsTopic seeds a topic named __consumer_offsets: kfake keeps group offsets without one,
// and group reads first check that it exists, as it does on every Kafka cluster that has a group.
func withOffsetsTopic() kfake.Opt { return kfake.SeedTopics(1, offsetsTopic) }
