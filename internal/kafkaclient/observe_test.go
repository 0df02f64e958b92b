package kafkaclient

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/broker"
)

// recorder is an Observer that keeps what it hears.
type recorder struct {
	mu       sync.Mutex
	dials    []Dial
	requests []Request
	codes    []string // of each request, taken during Requested as the contract says
	retries  []Retry
}

func (r *recorder) Dialed(d Dial) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dials = append(r.dials, d)
}

func (r *recorder) Requested(q Request) {
	codes := q.Codes()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests, r.codes = append(r.requests, q), append(r.codes, codes)
}

func (r *recorder) Retrying(x Retry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.retries = append(r.retries, x)
}

// kinds counts the requests heard by API.
func (r *recorder) kinds() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for _, q := range r.requests {
		out[q.Kind]++
	}
	return out
}

// A read tells its Observer each dial, and each request by API, version, broker (address and
// node id) and duration: as many as the broker received.
func TestObserverHearsDialsAndRequests(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(2, "t"))
	produce(t, c, "t", 0, 3)
	counts := acctest.CountRequests(c)
	cl := newClient(t, c, 5*time.Second)
	rec := &recorder{}
	ctx := cl.Observe(context.Background(), rec)
	if _, err := cl.Offsets(ctx, OffsetsRequest{Topic: "t", Partitions: []int{0}, MaxTimestamp: true}); err != nil {
		t.Fatal(err)
	}

	if diff := cmp.Diff(map[string]int{"Metadata": 1, "ListOffsets": 3}, rec.kinds()); diff != "" {
		t.Errorf("requests heard (-want +got):\n%s", diff)
	}
	if got := counts(); got[int16(kmsg.Metadata)] != 1 || got[int16(kmsg.ListOffsets)] != 3 {
		t.Errorf("the broker received %v; the Observer should hear as many", got)
	}
	addr := c.ListenAddrs()[0]
	leader := c.LeaderFor("t", 0)
	if len(rec.dials) != 1 || rec.dials[0].Broker != (Broker{Address: addr, NodeID: -1}) || rec.dials[0].Err != nil {
		t.Errorf("dials %+v; want one, to the bootstrap server %s (no node id yet), without error", rec.dials, addr)
	}
	for i, q := range rec.requests {
		want := Broker{Address: addr, NodeID: leader}
		if q.Kind == "Metadata" {
			want.NodeID = -1 // asked of the bootstrap server before any answer named it
		}
		if q.Broker != want || q.Version <= 0 || q.Took <= 0 || q.Err != nil || rec.codes[i] != "" {
			t.Errorf("request %d: %+v (codes %q); want to %+v, a version, a duration, no error", i, q, rec.codes[i], want)
		}
	}
	if len(rec.retries) != 0 {
		t.Errorf("retries %+v; want none", rec.retries)
	}
	if id := cl.NodeID(addr); id != leader {
		t.Errorf("NodeID(%s) = %d after the read, want %d", addr, id, leader)
	}
	if id := cl.NodeID("elsewhere:9092"); id != -1 {
		t.Errorf("NodeID of an address no broker advertises = %d, want -1", id)
	}
}

// A group read with time lags tells its Observer every request the broker received, by API:
// the coordinator's, the leaders' ListOffsets, and the Fetch batches of the next records.
func TestObserverHearsEveryRequestOfAGroupRead(t *testing.T) {
	c := newCluster(t, withOffsetsTopic(), kfake.SeedTopics(2, "t"))
	produce(t, c, "t", 0, 3)
	acctest.FakeCommit(t, c, "g", "t", 0, 1)
	counts := acctest.CountRequests(c)
	cl := newClient(t, c, 5*time.Second)
	rec := &recorder{}
	if _, err := cl.GroupOffsets(cl.Observe(context.Background(), rec), GroupOffsetsRequest{GroupID: "g", FetchTimestamps: true}); err != nil {
		t.Fatal(err)
	}
	received := map[string]int{}
	for key, n := range counts() {
		if key != int16(kmsg.ApiVersions) { // the handshake's: part of a dial
			received[kmsg.NameForKey(key)] = n
		}
	}
	if received["Fetch"] == 0 {
		t.Fatalf("the broker received %v: no Fetch, so the read did not look for the next record", received)
	}
	if diff := cmp.Diff(received, rec.kinds()); diff != "" {
		t.Errorf("requests heard against those received (-received +heard):\n%s", diff)
	}
}

// A retried read tells its Observer why (the error of the attempt that failed, which names the
// code) and after what backoff, and the answer's error codes on the request that had them.
func TestObserverHearsRetriesWithTheirCause(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 3)
	acctest.AnswerListOffsets(c, 1, acctest.ErrorCode(6)) // NOT_LEADER_OR_FOLLOWER, once
	cl := newClient(t, c, 5*time.Second)
	rec := &recorder{}
	if _, err := cl.Offsets(cl.Observe(context.Background(), rec), OffsetsRequest{Topic: "t", Partitions: []int{0}}); err != nil {
		t.Fatal(err)
	}

	if len(rec.retries) != 1 {
		t.Fatalf("retries %+v; want one", rec.retries)
	}
	r := rec.retries[0]
	if r.Attempt != 2 || !strings.Contains(r.Cause.Error(), "NOT_LEADER_OR_FOLLOWER") ||
		r.Backoff < backoffMin/2 || r.Backoff > backoffMin {
		t.Errorf("retry %+v (%v); want attempt 2, caused by NOT_LEADER_OR_FOLLOWER, after %s to %s", r, r.Cause, backoffMin/2, backoffMin)
	}
	// Attempt 1: Metadata, earliest and latest; attempt 2 the same, on fresh metadata.
	if diff := cmp.Diff(map[string]int{"Metadata": 2, "ListOffsets": 4}, rec.kinds()); diff != "" {
		t.Errorf("requests heard (-want +got):\n%s", diff)
	}
	var coded []string
	for i, q := range rec.requests {
		if rec.codes[i] != "" {
			coded = append(coded, q.Kind+": "+rec.codes[i])
		}
	}
	if diff := cmp.Diff([]string{"ListOffsets: NOT_LEADER_OR_FOLLOWER×1"}, coded); diff != "" {
		t.Errorf("answers with error codes (-want +got):\n%s", diff)
	}
}

// Reads that share requests (the coalescer's rounds, one Metadata request for a topic) each hear
// of the requests that carried their lookups: every read hears at least its three ListOffsets,
// though the broker received fewer than three per read.
func TestObserversOfSharedRequests(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 3)
	entries := acctest.ListOffsetsEntries(c)
	cl := newClient(t, c, 5*time.Second)
	const reads = 10
	recs := make([]*recorder, reads)
	var wg sync.WaitGroup
	for i := range recs {
		recs[i] = &recorder{}
		wg.Go(func() {
			if _, err := cl.Offsets(cl.Observe(context.Background(), recs[i]), OffsetsRequest{Topic: "t", Partitions: []int{0}, MaxTimestamp: true}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	sent, _ := entries()
	heard := 0
	for i, rec := range recs {
		n := rec.kinds()["ListOffsets"]
		if n < 3 {
			t.Errorf("read %d heard %d ListOffsets requests, want at least its 3", i, n)
		}
		heard += n
	}
	t.Logf("%d reads heard %d ListOffsets requests; the broker received %d", reads, heard, sent)
	if heard < sent {
		t.Errorf("the reads heard %d ListOffsets requests in all, fewer than the %d sent", heard, sent)
	}
}

// A read that joins a shared request after something was told (a Metadata request under way
// whose answer came meanwhile) hears it when it joins; a read without an Observer adds none.
func TestSharedObserversTellLateJoiners(t *testing.T) {
	var s *sharedObservers
	s = s.joined(context.Background()) // a read without an Observer
	if ctx := context.Background(); s != nil || s.context(ctx) != ctx {
		t.Fatal("without an Observer, nothing should be allocated and the request's context left as it is")
	}
	cl := &Client{cluster: &clusterView{layout: newLayout()}}
	early, late := &recorder{}, &recorder{}
	s = s.joined(cl.Observe(context.Background(), early))
	if s == nil || broker.ObserverOf(s.context(context.Background())) != s {
		t.Fatal("with an Observer, the request's context should carry the shared Observers")
	}
	s.Dialed(broker.Dial{Address: "b:9092"})
	s.Exchanged(broker.Exchange{Address: "b:9092", Request: kmsg.NewPtrMetadataRequest(), Response: kmsg.NewPtrMetadataResponse()})
	if s.joined(cl.Observe(context.Background(), late)) != s {
		t.Fatal("a later read should join the same shared Observers")
	}
	s.Exchanged(broker.Exchange{Address: "b:9092", Request: kmsg.NewPtrListOffsetsRequest(), Response: kmsg.NewPtrListOffsetsResponse()})
	for name, rec := range map[string]*recorder{"early": early, "late": late} {
		if diff := cmp.Diff(map[string]int{"Metadata": 1, "ListOffsets": 1}, rec.kinds()); diff != "" || len(rec.dials) != 1 {
			t.Errorf("the %s read heard %d dials (want 1) and requests (-want +got):\n%s", name, len(rec.dials), diff)
		}
	}
}
