package kafkaclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/broker"
)

// Brokers that advertise a request and close the connection at it (Kafka-compatible services that
// implement the protocol themselves): acctest.FakeCompatibleService closes at ListOffsets -3, -4
// and -5 and lists no DescribeProducers, as Tansu 0.6.0 did.

// refusalBound bounds a read that meets a refusal: a few backoffs (broker.RefusedAfter closes in a row),
// far below the 30 s timeout the reads here are given, even on a busy machine.
const refusalBound = 10 * time.Second

// The optional lookups a broker refuses cost the required ones nothing: earliest and latest are
// exact, the refused lookups are nil and say why, each refused once broker.RefusedAfter connections in a
// row closed at it; and a later read does not ask them again.
func TestRefusedOptionalLookupsCostNothing(t *testing.T) {
	c, closed := acctest.FakeCompatibleService(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 5)
	cl := newClient(t, c, 30*time.Second)
	req := OffsetsRequest{Topic: "t", MaxTimestamp: true, TieredOffsets: true}

	start := time.Now()
	got, err := cl.Offsets(context.Background(), req)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("after %s: %v", took, err)
	}
	if took > refusalBound {
		t.Errorf("took %s; want well within the timeout", took)
	}
	p := got[0]
	if p.Earliest != 0 || p.Latest != 5 || p.MaxTimestampOffset != nil || p.EarliestLocal != nil || p.LatestTiered != nil {
		t.Fatalf("got %+v; want 0/5, the optional offsets nil", p)
	}
	want := map[LookupName]string{
		LookupMaxTimestamp:          "closed the connection at ListOffsets v9 (timestamp -3), before any answer, on 3 new connections in a row",
		LookupEarliestLocal:         "closed the connection at ListOffsets v9 (timestamp -4)",
		LookupLatestTiered:          "closed the connection at ListOffsets v9 (timestamp -5)",
		LookupEarliestPendingUpload: "the earliest pending upload offset (ListOffsets v11, KIP-1023; broker " + c.ListenAddrs()[0] + " serves up to v9)",
	}
	if len(p.Unanswered) != len(want) {
		t.Fatalf("unanswered: got %+v; want the four optional lookups", p.Unanswered)
	}
	for _, u := range p.Unanswered {
		if !strings.Contains(u.Err.Error(), want[u.Lookup]) {
			t.Errorf("%s: got %v; want it to say %q", u.Lookup, u.Err, want[u.Lookup])
		}
	}
	if n := closed(); n != 3*broker.RefusedAfter {
		t.Errorf("the broker closed %d connections; want %d: broker.RefusedAfter for each of the three lookups it refuses", n, 3*broker.RefusedAfter)
	}
	t.Logf("first read: %s", took)

	if again, err := cl.Offsets(context.Background(), req); err != nil || again[0].Latest != 5 || len(again[0].Unanswered) != 4 {
		t.Fatalf("second read: got %+v, %v", again, err)
	}
	if n := closed(); n != 3*broker.RefusedAfter {
		t.Errorf("the second read made the broker close %d more connections; want none", n-3*broker.RefusedAfter)
	}
}

// A required lookup that the broker refuses fails the read at once, naming the request and the
// broker, where a lost connection is otherwise retried until the timeout: the last write of a
// topic (-3, which the writers' reads cannot go without).
func TestRefusedRequiredLookupFailsAtOnce(t *testing.T) {
	c, _ := acctest.FakeCompatibleService(t, kfake.SeedTopics(1, "t"))
	cl := newClient(t, c, 30*time.Second)
	start := time.Now()
	_, _, err := cl.TopicsOffsets(context.Background(), TopicsOffsetsRequest{Name: mustWhole(t, "t"), LastWrite: true})
	took := time.Since(start)
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "ListOffsets (max timestamp, read_uncommitted)") ||
		!strings.Contains(err.Error(), "broker 0 ("+c.ListenAddrs()[0]+") closed the connection at ListOffsets v9 (timestamp -3)") ||
		!strings.Contains(err.Error(), "it advertises ListOffsets v9 but does not serve this request") {
		t.Fatalf("got %v; want a RefusedError naming the lookup, the broker and the request", err)
	}
	if took > refusalBound {
		t.Errorf("took %s; want well within the 30s timeout", took)
	}
}

// A broker that closes a connection at a request once or twice (restarting) is retried as before;
// only broker.RefusedAfter closes in a row are a refusal, and an answer in between starts the count over.
func TestClosesBelowRefusalAreRetried(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 3)
	cl := newClient(t, c, 30*time.Second)
	for round := 0; round < 3; round++ {
		failListOffsets(c, broker.RefusedAfter-1)
		got, err := cl.PartitionOffsets(context.Background(), "t", 0)
		if err != nil || got.Latest != 3 {
			t.Fatalf("round %d: got %+v, %v; want 0/3 after %d lost requests", round, got, err, broker.RefusedAfter-1)
		}
	}
}

// The requests the broker never began, behind the one it closed the connection at, are sent again
// at once on a new connection, in the same round: the closes cost no attempt of the read.
func TestRequestsBehindAClosedOneAreSentAgain(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 3)
	cl := newClient(t, c, 30*time.Second)
	if _, err := cl.PartitionOffsets(context.Background(), "t", 0); err != nil { // metadata cached, connected
		t.Fatal(err)
	}
	acctest.CloseAtListOffsets(c, -3)
	rec := &recorder{}
	got, err := cl.Offsets(cl.Observe(context.Background(), rec), OffsetsRequest{Topic: "t", MaxTimestamp: true})
	if err != nil || got[0].Latest != 3 || got[0].MaxTimestampOffset != nil {
		t.Fatalf("got %+v, %v", got, err)
	}
	if retries := len(rec.retries); retries != broker.RefusedAfter-1 {
		t.Errorf("the read was attempted %d times more; want %d: one per close before the refusal, the latest never lost", retries, broker.RefusedAfter-1)
	}
}

// A request that the broker does not list in ApiVersions is refused before anything is sent:
// kafka_topic_producers asks DescribeProducers of every leader before its first ListOffsets round.
func TestTopicProducersChecksDescribeProducersFirst(t *testing.T) {
	c, closed := acctest.FakeCompatibleService(t, kfake.SeedTopics(1, "t"))
	counts := acctest.CountRequests(c)
	cl := newClient(t, c, 30*time.Second)
	_, err := cl.TopicProducers(context.Background(), TopicProducersRequest{Topics: []string{"t"}})
	var ue *UnsupportedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "the DescribeProducers API (API key 61, KIP-664) on broker 0") {
		t.Fatalf("got %v; want UnsupportedError naming DescribeProducers", err)
	}
	if n := counts()[kmsg.ListOffsets.Int16()]; n != 0 || closed() != 0 {
		t.Errorf("sent %d ListOffsets requests (%d closed) before refusing; want none", n, closed())
	}
}

// kafka_topic_producers against a broker that serves DescribeProducers but refuses ListOffsets -3:
// it fails at once naming the refused request, not after the timeout.
func TestTopicProducersRefusedLastWriteFailsAtOnce(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	acctest.CloseAtListOffsets(c, -3)
	cl := newClient(t, c, 30*time.Second)
	start := time.Now()
	_, err := cl.TopicProducers(context.Background(), TopicProducersRequest{Topics: []string{"t"}})
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "closed the connection at ListOffsets v") ||
		!strings.Contains(err.Error(), "(timestamp -3)") {
		t.Fatalf("got %v; want a RefusedError naming ListOffsets timestamp -3", err)
	}
	if took := time.Since(start); took > refusalBound {
		t.Errorf("took %s; want well within the 30s timeout", took)
	}
}

// A broker that closes the connection at every request but ApiVersions (its storage failed, say)
// and answers a SASL handshake on every listener, as some Kafka-compatible services do, is not
// taken for a SASL listener: a listener that requires SASL refuses ApiVersions after the
// handshake, this one answers it. The read fails at once with the refusal, not "requires SASL".
func TestClosingEveryRequestIsNoSASLListener(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	c.ControlKey(kmsg.SASLHandshake.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		res := kmsg.NewPtrSASLHandshakeResponse()
		res.Version = req.GetVersion()
		res.SupportedMechanisms = []string{"PLAIN"}
		return res, nil, true
	})
	closed := acctest.CloseAt(c, kmsg.Metadata, func(kmsg.Request) bool { return true })
	cl := newClient(t, c, 30*time.Second)
	start := time.Now()
	_, err := cl.PartitionOffsets(context.Background(), "t", 0)
	var (
		re   *RefusedError
		sasl *SASLError
	)
	if errors.As(err, &sasl) || !errors.As(err, &re) || !strings.Contains(err.Error(), "closed the connection at Metadata v") {
		t.Fatalf("got %v; want a RefusedError at Metadata, no SASL diagnosis", err)
	}
	if took := time.Since(start); took > refusalBound || closed() != broker.RefusedAfter {
		t.Errorf("took %s and %d closes; want well within the timeout, %d closes", took, closed(), broker.RefusedAfter)
	}
}

// A broker that closes the connection at DescribeGroups (Tansu 0.6.0 on SQLite) fails a group's
// read at once, naming it.
func TestRefusedDescribeGroupsFailsAtOnce(t *testing.T) {
	c := newCluster(t, withOffsetsTopic(), kfake.SeedTopics(1, "t"))
	acctest.FakeCommit(t, c, "g", "t", 0, 0)
	acctest.CloseAt(c, kmsg.DescribeGroups, func(kmsg.Request) bool { return true })
	cl := newClient(t, c, 30*time.Second)
	start := time.Now()
	_, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), `DescribeGroups for group "g": broker 0`) ||
		!strings.Contains(err.Error(), "closed the connection at DescribeGroups v") {
		t.Fatalf("got %v; want a RefusedError naming DescribeGroups", err)
	}
	if took := time.Since(start); took > refusalBound {
		t.Errorf("took %s; want well within the 30s timeout", took)
	}
}
