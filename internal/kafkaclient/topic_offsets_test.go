package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// produceAt writes one record per timestamp to topic/partition, in order.
func produceAt(t *testing.T, c *kfake.Cluster, topic string, partition int32, ts ...time.Time) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, at := range ts {
		r := &kgo.Record{Topic: topic, Partition: partition, Value: []byte("v"), Timestamp: at}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

func ptr(v int64) *int64 { return &v }

// show prints an optional offset the way Terraform would: null or the number.
func show(p *int64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
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

	for read := 0; read < 2; read++ { // case C7: the same entries in the same order every time
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
		{base.Add(-time.Hour), ptr(0)},
		{base, ptr(0)},
		{base.Add(30 * time.Second), ptr(1)},
		{base.Add(2 * time.Minute), ptr(2)},
		{base.Add(3 * time.Minute), nil},
		{time.Unix(0, 0), ptr(0)}, // the epoch is a time like any other, not a special value
	} {
		ms := tc.at.UnixMilli()
		got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "ts", TimestampMs: &ms})
		if err != nil {
			t.Fatal(err)
		}
		if show(got[0].TimestampOffset) != show(tc.want) || got[0].Latest != 3 {
			t.Errorf("at %s: got offset %s (latest %d), want %s (latest 3)", tc.at, show(got[0].TimestampOffset), got[0].Latest, show(tc.want))
		}
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

// A broker older than Kafka 3.0 (ListOffsets below v7) cannot answer timestamp -3.
func TestMaxTimestampUnsupportedByOldBroker(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "old"), kfake.MaxVersions(kversion.V2_8_0()))
	cl := newClient(t, c, 5*time.Second)

	got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "old"})
	if err != nil || got[0].Latest != 0 {
		t.Fatalf("plain offsets on an old broker: got %+v, %v; want 0/0", got, err)
	}
	_, err = cl.Offsets(context.Background(), OffsetsRequest{Topic: "old", MaxTimestamp: true})
	// Refused before asking: a real pre-3.0 broker would read -3 as a time and answer offset 0.
	var ue *UnsupportedError
	if !errors.As(err, &ue) || ue.Since != "3.0" || !strings.Contains(err.Error(), "serves up to v6") {
		t.Fatalf("got %v, want UnsupportedError naming Kafka 3.0 and the broker's ListOffsets v6", err)
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
