package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// These tests run against franz-go's in-process kfake cluster: fast, and able to inject faults
// that a real broker cannot be made to produce on demand. The acceptance tests in
// internal/provider check the same behaviour against a real Apache Kafka broker.

// A partition nothing was ever written to reads 0 / 0, never -1; after one record, 0 / 1.
func TestPartitionOffsetsEmptyThenOneRecord(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t1"))
	cl := newClient(t, c, 5*time.Second)

	got, err := cl.PartitionOffsets(context.Background(), "t1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, PartitionOffsets{Earliest: 0, Latest: 0}) {
		t.Fatalf("empty partition: got %+v, want 0/0", got)
	}
	produce(t, c, "t1", 0, 1)
	got, err = cl.PartitionOffsets(context.Background(), "t1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, PartitionOffsets{Earliest: 0, Latest: 1}) {
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
	if !reflect.DeepEqual(got, PartitionOffsets{Partition: 1, Earliest: 0, Latest: 5}) {
		t.Fatalf("got %+v, want 0/5", got)
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("opened %d connections, want 1 (the bootstrap server, which leads the partition)", n)
	}
	expectRequests(t, counts, dials, map[kmsg.Key]int{kmsg.Metadata: 1, kmsg.ListOffsets: 2})
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

// A broker that closes the connection at every ListOffsets request, while it answers the
// ApiVersions of each new connection, refuses ListOffsets: an error, never a silent 0, that says
// so at once (refusedAfter closes in a row), not at the timeout.
func TestTransportFailureIsAnErrorNeverZero(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 3)
	failListOffsets(c, -1)
	cl := newClient(t, c, 30*time.Second)

	start := time.Now()
	got, err := cl.PartitionOffsets(context.Background(), "t", 0)
	if err == nil {
		t.Fatalf("got offsets %+v from a broker that closed every ListOffsets connection; want an error", got)
	}
	if elapsed := time.Since(start); elapsed > 15*time.Second {
		t.Fatalf("took %s, want well within the 30s timeout", elapsed)
	}
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), `ListOffsets (earliest) for topic "t" partition 0: broker 0`) ||
		!strings.Contains(err.Error(), "(timestamp -2), before any answer, on 3 new connections in a row") {
		t.Fatalf("got %v; want a RefusedError naming the lookup, the broker and the request", err)
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
	if !reflect.DeepEqual(got, PartitionOffsets{Earliest: 0, Latest: 3}) {
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
	if !reflect.DeepEqual(got, PartitionOffsets{Earliest: 0, Latest: 4}) {
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

// On a cluster that auto-creates topics, reading a topic that does not exist is an error naming
// it, and the topic is not created (the real broker test is in internal/provider).
func TestUnknownTopicIsNotCreated(t *testing.T) {
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

// Partition 7 of a topic of 3 is a prompt error that names the valid range.
func TestPartitionOutOfRange(t *testing.T) {
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

// A bootstrap address that is a closed port, or a port that accepts TCP and never answers, is an
// error within the timeout that names the address and the kind of failure: no hang.
func TestUnreachable(t *testing.T) {
	closed := acctest.ClosedPort(t)
	silent := acctest.SilentListener(t)
	for _, tc := range []struct {
		name, addr, want string
	}{
		{name: "closed port", addr: closed, want: "connection refused"},
		{name: "silent listener", addr: silent, want: "never answered the Kafka handshake"},
		{name: "HTTP server", addr: acctest.RespondingListener(t, acctest.HTTPResponse), want: "answered with HTTP"},
		{name: "TLS server", addr: acctest.RespondingListener(t, acctest.TLSAlert), want: "answered with TLS"},
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

// settle checks one partition's answers against each other: a contradiction is asked again
// (errInconsistentOffsets); a max-timestamp record below earliest (deleted) or without a
// timestamp becomes null.
func TestSettle(t *testing.T) {
	for _, tc := range []struct {
		name    string
		req     OffsetsRequest
		in      PartitionOffsets
		want    PartitionOffsets // when wantErr is false
		wantErr bool
	}{
		{
			name: "consistent",
			in:   PartitionOffsets{Earliest: 2, Latest: 9, MaxTimestampOffset: ptr(5), MaxTimestamp: ptr(1000)},
			want: PartitionOffsets{Earliest: 2, Latest: 9, MaxTimestampOffset: ptr(5), MaxTimestamp: ptr(1000)},
		},
		{
			name: "max record deleted",
			in:   PartitionOffsets{Earliest: 2, Latest: 9, MaxTimestampOffset: ptr(1), MaxTimestamp: ptr(1000)},
			want: PartitionOffsets{Earliest: 2, Latest: 9},
		},
		{
			name: "last write deleted: its time stays, as a write",
			req:  OffsetsRequest{Topic: "t", LastWrite: true},
			in:   PartitionOffsets{Earliest: 2, Latest: 9, MaxTimestampOffset: ptr(1), MaxTimestamp: ptr(1000)},
			want: PartitionOffsets{Earliest: 2, Latest: 9, MaxTimestamp: ptr(1000)},
		},
		{
			name: "last write deleted, without a timestamp",
			req:  OffsetsRequest{Topic: "t", LastWrite: true},
			in:   PartitionOffsets{Earliest: 2, Latest: 2, MaxTimestampOffset: ptr(1), MaxTimestamp: ptr(-1)},
			want: PartitionOffsets{Earliest: 2, Latest: 2},
		},
		{
			name: "max record without timestamp",
			in:   PartitionOffsets{Earliest: 0, Latest: 9, MaxTimestampOffset: ptr(3), MaxTimestamp: ptr(-1)},
			want: PartitionOffsets{Earliest: 0, Latest: 9, MaxTimestampOffset: ptr(3)},
		},
		{name: "max beyond latest", in: PartitionOffsets{Earliest: 0, Latest: 9, MaxTimestampOffset: ptr(9), MaxTimestamp: ptr(1)}, wantErr: true},
		{name: "timestamp offset beyond latest", in: PartitionOffsets{Earliest: 0, Latest: 9, TimestampOffset: ptr(50)}, wantErr: true},
		{name: "timestamp offset below earliest", in: PartitionOffsets{Earliest: 5, Latest: 9, TimestampOffset: ptr(4)}, wantErr: true},
		{name: "earliest above latest", in: PartitionOffsets{Earliest: 10, Latest: 5}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.in
			req := tc.req
			req.Topic = "t"
			err := settle(req, &p)
			if tc.wantErr {
				if !errors.Is(err, errInconsistentOffsets) {
					t.Fatalf("got %v, want errInconsistentOffsets", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, p); diff != "" {
				t.Errorf("settled offsets (-want +got):\n%s", diff)
			}
		})
	}
}

// Kafka answers the max-timestamp lookup without regard to the log start offset: after
// DeleteRecords past that record, it is gone, so null rather than an offset below earliest.
func TestMaxTimestampAfterDeleteRecords(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	produceAt(t, c, "t", 0, base, base.Add(time.Hour), base.Add(time.Minute))
	adm, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	var o kadm.Offsets
	o.Add(kadm.Offset{Topic: "t", Partition: 0, At: 2, LeaderEpoch: -1})
	if _, err := kadm.NewClient(adm).DeleteRecords(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, c, 3*time.Second)
	got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t", MaxTimestamp: true})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Earliest != 2 || got[0].Latest != 3 || got[0].MaxTimestampOffset != nil || got[0].MaxTimestamp != nil {
		t.Fatalf("got %+v (max %s at %s); want 2/3 with max null", got[0], show(got[0].MaxTimestampOffset), show(got[0].MaxTimestamp))
	}
}

// A whole topic on three brokers: every partition exact, sorted, one request per leader and
// lookup rather than one per partition.
func TestTopicOffsetsSortedAndBatchedPerLeader(t *testing.T) {
	const n = 12
	c := newCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(n, "wide"))
	for p := int32(0); p < n; p++ {
		produce(t, c, "wide", p, int(p))
	}
	leaders := map[int32]bool{}
	for p := int32(0); p < n; p++ {
		leaders[c.LeaderFor("wide", p)] = true
	}
	count := acctest.ListOffsetsEntries(c)
	cl := newClient(t, c, 5*time.Second)

	for read := 0; read < 2; read++ { // the same entries in the same order every time: a second plan shows no diff
		got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "wide"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("got %d partitions, want %d", len(got), n)
		}
		for i, p := range got {
			if p.Partition != i || p.Earliest != 0 || p.Latest != int64(i) {
				t.Fatalf("read %d entry %d: got %+v, want partition %d with 0/%d", read, i, p, i, i)
			}
		}
	}
	requests, partitions := count()
	if want := 2 * 2 * len(leaders); requests != want || partitions != 2*2*n {
		t.Fatalf("two reads sent %d ListOffsets requests carrying %d partitions; want %d (2 lookups x %d leaders x 2 reads) carrying %d",
			requests, partitions, want, len(leaders), 2*2*n)
	}
}

// Records at T, T+1m, T+2m: the first offset at or after a time, and null past the last record.
func TestTimestampLookup(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "ts"))
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	produceAt(t, c, "ts", 0, base, base.Add(time.Minute), base.Add(2*time.Minute))
	cl := newClient(t, c, 5*time.Second)

	for _, tc := range []struct {
		at   time.Time
		want *int64
	}{
		{at: base.Add(-time.Hour), want: ptr(0)},
		{at: base, want: ptr(0)},
		{at: base.Add(30 * time.Second), want: ptr(1)},
		{at: base.Add(2 * time.Minute), want: ptr(2)},
		{at: base.Add(3 * time.Minute), want: nil},
		{at: time.Unix(0, 0), want: ptr(0)}, // the epoch is a time like any other, not a special value
	} {
		t.Run(tc.at.Format(time.RFC3339), func(t *testing.T) {
			ms := tc.at.UnixMilli()
			got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "ts", TimestampMs: &ms})
			if err != nil {
				t.Fatal(err)
			}
			if show(got[0].TimestampOffset) != show(tc.want) || got[0].Latest != 3 {
				t.Errorf("at %s: got offset %s (latest %d), want %s (latest 3)", tc.at, show(got[0].TimestampOffset), got[0].Latest, show(tc.want))
			}
		})
	}
}

func TestNegativeTimestampRefused(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "ts"))
	cl := newClient(t, c, 5*time.Second)
	for _, ms := range []int64{-1, -2, -3} {
		_, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "ts", TimestampMs: ptr(ms)})
		if err == nil {
			t.Fatalf("timestamp %d: got no error; ListOffsets would read it as a special value", ms)
		}
	}
}

func TestMaxTimestamp(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(2, "mt"))
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	// Out of order on purpose: the largest timestamp is on offset 1, not the last record.
	produceAt(t, c, "mt", 1, base, base.Add(5*time.Minute), base.Add(time.Minute))
	cl := newClient(t, c, 5*time.Second)

	got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "mt", MaxTimestamp: true})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].MaxTimestampOffset != nil || got[0].MaxTimestamp != nil {
		t.Errorf("empty partition: got offset %s, timestamp %s; want null, null", show(got[0].MaxTimestampOffset), show(got[0].MaxTimestamp))
	}
	if show(got[1].MaxTimestampOffset) != "1" || show(got[1].MaxTimestamp) != fmt.Sprint(base.Add(5*time.Minute).UnixMilli()) {
		t.Errorf("partition 1: got offset %s, timestamp %s; want 1, %d", show(got[1].MaxTimestampOffset), show(got[1].MaxTimestamp), base.Add(5*time.Minute).UnixMilli())
	}
}

// A broker older than Kafka 3.0 (ListOffsets below v7) cannot answer timestamp -3: it is not asked
// (a real pre-3.0 broker would read -3 as a time and answer offset 0), the other offsets are read,
// and the partition says why its max timestamp is nil.
func TestMaxTimestampUnsupportedByOldBroker(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "old"), kfake.MaxVersions(kversion.V2_8_0()))
	produce(t, c, "old", 0, 2)
	counts := acctest.ListOffsetsEntries(c)
	cl := newClient(t, c, 5*time.Second)

	got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "old", MaxTimestamp: true})
	if err != nil || got[0].Earliest != 0 || got[0].Latest != 2 || got[0].MaxTimestampOffset != nil {
		t.Fatalf("got %+v, %v; want 0/2 without a max timestamp", got, err)
	}
	var ue *UnsupportedError
	if un := got[0].Unanswered; len(un) != 1 || un[0].Lookup != LookupMaxTimestamp || !errors.As(un[0].Err, &ue) ||
		ue.Since != "3.0" || !strings.Contains(ue.Error(), "serves up to v6") {
		t.Fatalf("unanswered: got %+v; want the max timestamp, unsupported: Kafka 3.0, the broker's ListOffsets v6", un)
	}
	if requests, _ := counts(); requests != 2 {
		t.Errorf("sent %d ListOffsets requests, want 2 (earliest, latest): -3 is never sent", requests)
	}
}

func TestPartitionsSubsetAndOutOfRange(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(4, "four"))
	produce(t, c, "four", 3, 2)
	cl := newClient(t, c, 5*time.Second)

	got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "four", Partitions: []int{3, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Partition != 1 || got[1].Partition != 3 || got[1].Latest != 2 {
		t.Fatalf("got %+v, want partitions 1 (0/0) and 3 (0/2) in order", got)
	}
	_, err = cl.Offsets(context.Background(), OffsetsRequest{Topic: "four", Partitions: []int{4}})
	var oor *PartitionOutOfRangeError
	if !errors.As(err, &oor) || oor.Partitions != 4 {
		t.Fatalf("got %v, want PartitionOutOfRangeError with 4 partitions", err)
	}
}

// kfake answers the tiered-storage lookups as a broker answers them for a topic without remote
// storage (-4: the log start offset; -5: -1) up to the ListOffsets version it is given; it serves
// v10 at most, so -6 (v11) is never asked of it. The real broker tests are in internal/provider
// (TestAccTiered*).

// Where records lie in remote storage only (earliest local above earliest), the broker's
// max-timestamp answer covers local segments only (KAFKA-17552): it is dropped, and said so.
func TestMaxTimestampDroppedWhereRecordsAreRemoteOnly(t *testing.T) {
	for _, tc := range []struct {
		name         string
		local        int64
		wantDropped  bool
		wantMaxStamp string
	}{
		{name: "all local", local: 0, wantMaxStamp: "1"},
		{name: "offsets 0 and 1 remote only", local: 2, wantDropped: true, wantMaxStamp: "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, kfake.SeedTopics(1, "t"))
			offsets := map[int64]int64{wire.TimestampEarliest: 0, wire.TimestampLatest: 3, wire.TimestampMax: 1,
				wire.TimestampEarliestLocal: tc.local, wire.TimestampLatestTiered: tc.local - 1}
			acctest.AnswerListOffsets(c, -1, func(rp kmsg.ListOffsetsRequestTopicPartition) (int16, int64) {
				return 0, offsets[rp.Timestamp]
			})
			cl := newClient(t, c, 5*time.Second)

			got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t", MaxTimestamp: true, TieredOffsets: true})
			if err != nil {
				t.Fatal(err)
			}
			p := got[0]
			if p.MaxTimestampLocalOnly != tc.wantDropped || show(p.MaxTimestampOffset) != tc.wantMaxStamp {
				t.Errorf("got local only %v, max timestamp offset %s; want %v, %s",
					p.MaxTimestampLocalOnly, show(p.MaxTimestampOffset), tc.wantDropped, tc.wantMaxStamp)
			}
		})
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

// A read whose partitions come with their topics interleaved (each topic in several runs, the
// costly order: topicRuns) still gets each partition's own offsets, and asks each partition once
// per lookup.
func TestReadOfInterleavedTopicsGetsEveryPartition(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(3, "a", "b"))
	for p := int32(0); p < 3; p++ {
		produce(t, c, "a", p, int(p)+1)
		produce(t, c, "b", p, int(p)+4)
	}
	cl := newClient(t, c, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // as Client.TopicsOffsets does: a round's requests wait as long as its reads
	defer cancel()
	md, err := cl.cluster.allMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, grouped, err := selectTopics(md, TopicsOffsetsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(grouped, func(x, y partitionLeader) int { // a0 b0 a1 b1 a2 b2
		if x.partition != y.partition {
			return x.partition - y.partition
		}
		return strings.Compare(x.topic, y.topic)
	})
	count := acctest.ListOffsetsEntries(c)

	got, err := cl.offsets.listTopicsOffsets(ctx, OffsetsRequest{}, grouped)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]PartitionOffsets{
		"a": {{Partition: 0, Latest: 1}, {Partition: 1, Latest: 2}, {Partition: 2, Latest: 3}},
		"b": {{Partition: 0, Latest: 4}, {Partition: 1, Latest: 5}, {Partition: 2, Latest: 6}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("offsets by topic (-want +got):\n%s", diff)
	}
	if requests, entries := count(); requests != 2 || entries != 12 {
		t.Errorf("%d ListOffsets requests carrying %d partitions; want 2 (earliest, latest) carrying 12 (6 each)", requests, entries)
	}
}
