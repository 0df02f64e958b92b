package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

func wholeMatch(t *testing.T, pattern string) *TopicsOffsetsRequest {
	t.Helper()
	re, err := WholeMatch(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return &TopicsOffsetsRequest{Name: re}
}

// A regex selects whole names only: "orders\..*" selects orders.a and orders.b, not
// xorders.a (a substring match) nor orders (no dot). Every partition exact and sorted.
func TestTopicsOffsetsWholeNameMatch(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(3, "orders.a"), kfake.SeedTopics(2, "orders.b"),
		kfake.SeedTopics(1, "xorders.a", "orders", "other"))
	produce(t, c, "orders.a", 0, 4)
	produce(t, c, "orders.a", 2, 1)
	produce(t, c, "orders.b", 1, 7)
	produce(t, c, "xorders.a", 0, 3)
	cl := newClient(t, c, 5*time.Second)

	got, _, err := cl.TopicsOffsets(context.Background(), *wholeMatch(t, `orders\..*`))
	if err != nil {
		t.Fatal(err)
	}
	want := "[orders.a internal=false [0:0-4 1:0-0 2:0-1]] [orders.b internal=false [0:0-0 1:0-7]]"
	if s := showTopics(got); s != want {
		t.Fatalf("got  %s\nwant %s", s, want)
	}

	none, _, err := cl.TopicsOffsets(context.Background(), *wholeMatch(t, `nothing.*`))
	if err != nil || len(none) != 0 {
		t.Fatalf("no match: got %v, %v; want an empty list", none, err)
	}
}

func showTopics(ts []TopicOffsets) string {
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("[%s internal=%v [", t.Name, t.Internal)
		for j, p := range t.Partitions {
			if j > 0 {
				s += " "
			}
			s += fmt.Sprintf("%d:%d-%d", p.Partition, p.Earliest, p.Latest)
		}
		s += "]]"
	}
	return s
}

// Internal topics are left out unless asked for (kfake marks a topic internal by a config).
func TestTopicsOffsetsInternal(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "app"))
	if err := c.CreateTopic("__consumer_offsets", 1, map[string]string{"kfake.is_internal": "true"}); err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, c, 5*time.Second)
	for _, tc := range []struct {
		include bool
		want    string
	}{
		{include: false, want: "[app internal=false [0:0-0]]"},
		{include: true, want: "[__consumer_offsets internal=true [0:0-0]] [app internal=false [0:0-0]]"},
	} {
		t.Run(fmt.Sprintf("include_internal=%v", tc.include), func(t *testing.T) {
			got, _, err := cl.TopicsOffsets(context.Background(), TopicsOffsetsRequest{IncludeInternal: tc.include})
			if err != nil {
				t.Fatal(err)
			}
			if s := showTopics(got); s != tc.want {
				t.Errorf("include_internal=%v: got %s, want %s", tc.include, s, tc.want)
			}
		})
	}
}

// Requests grow with the brokers, not with the topics: 300 topics on three brokers cost one
// Metadata request and, per lookup (earliest, latest), one ListOffsets request per leader.
func TestTopicsOffsetsRequestsGrowWithBrokers(t *testing.T) {
	const n = 300
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("t%03d", i))
	}
	c := newCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(2, names...))
	produce(t, c, "t007", 1, 3)
	leaders := map[int32]bool{}
	for _, name := range names {
		for p := int32(0); p < 2; p++ {
			leaders[c.LeaderFor(name, p)] = true
		}
	}
	counts := acctest.CountRequests(c)
	cl, dials := countingClient(t, c)
	got, _, err := cl.TopicsOffsets(context.Background(), TopicsOffsetsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n || got[7].Name != "t007" || got[7].Partitions[1].Latest != 3 {
		t.Fatalf("got %d topics, t007: %+v", len(got), got[7])
	}
	// And one DescribeLogDirs per broker: which topics it holds, so that none is hidden (coverage.go).
	expectRequests(t, counts, dials, map[kmsg.Key]int{kmsg.Metadata: 1, kmsg.ListOffsets: 2 * len(leaders), kmsg.DescribeLogDirs: 3})
}

// The last write: each partition's largest record timestamp under read_uncommitted,
// whatever the read's isolation level, so that a record of an open transaction counts; a broker
// before Kafka 3.0 (ListOffsets below v7) cannot answer it, and the read says so rather than
// answer null, which would read as "never written".
func TestTopicsOffsetsLastWrite(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(2, "a"))
	produceAt(t, c, "a", 0, stamped(10, 30)...)
	openTransaction(t, c, "a", 1, 1) // stamped now: the latest write
	got, _, err := newClient(t, c, 5*time.Second).TopicsOffsets(context.Background(),
		TopicsOffsetsRequest{Isolation: ReadCommitted, LastWrite: true})
	if err != nil || len(got) != 1 {
		t.Fatalf("got %+v, %v", got, err)
	}
	p0, p1 := got[0].Partitions[0].MaxTimestamp, got[0].Partitions[1].MaxTimestamp
	if p0 == nil || *p0 != stamped(30)[0].UnixMilli() || p1 == nil || *p1 < *p0 {
		t.Fatalf("max timestamps %s and %s, want %d and the open record's, later", show(p0), show(p1), stamped(30)[0].UnixMilli())
	}
	if last := LastWriteMs(got[0].Partitions); last == nil || *last != *p1 {
		t.Fatalf("last write %s, want partition 1's %d", show(last), *p1)
	}

	old := newCluster(t, kfake.SeedTopics(1, "a"), kfake.MaxVersions(kversion.V2_8_0()))
	_, _, err = newClient(t, old, 5*time.Second).TopicsOffsets(context.Background(), TopicsOffsetsRequest{LastWrite: true})
	var unsupported *UnsupportedError
	if !errors.As(err, &unsupported) || unsupported.Since != "3.0" {
		t.Fatalf("Kafka 2.8: got %v, want an *UnsupportedError naming Kafka 3.0", err)
	}
}

// A partition that holds records without a known last write (its record with the largest
// timestamp removed by DeleteRecords, or records without timestamps) makes the topic's unknown:
// the other partitions' latest would read as a quiet topic. Empty partitions have none and count
// for nothing.
func TestLastWriteMsUnknownPartition(t *testing.T) {
	at := func(ms int64) *int64 { return &ms }
	cases := []struct {
		name       string
		partitions []PartitionOffsets
		want       *int64
	}{
		{"every partition known", []PartitionOffsets{{Earliest: 0, Latest: 3, MaxTimestamp: at(10)}, {Earliest: 2, Latest: 9, MaxTimestamp: at(20)}}, at(20)},
		{"an empty partition", []PartitionOffsets{{Earliest: 4, Latest: 4}, {Earliest: 0, Latest: 1, MaxTimestamp: at(7)}}, at(7)},
		{"records without a known time", []PartitionOffsets{{Earliest: 0, Latest: 3}, {Earliest: 0, Latest: 1, MaxTimestamp: at(7)}}, nil},
		{"records held in an open transaction only", []PartitionOffsets{{Earliest: 0, Latest: 0, HighWatermark: 2}, {Earliest: 0, Latest: 1, MaxTimestamp: at(7)}}, nil},
		{"no record at all", []PartitionOffsets{{Earliest: 5, Latest: 5}}, nil},
		{"records deleted since, their time known", []PartitionOffsets{{Earliest: 5, Latest: 5, MaxTimestamp: at(9)}, {Earliest: 0, Latest: 1, MaxTimestamp: at(7)}}, at(9)},
	}
	for _, c := range cases {
		if got := LastWriteMs(c.partitions); show(got) != show(c.want) {
			t.Errorf("%s: last write %s, want %s", c.name, show(got), show(c.want))
		}
	}
}

// A topic's writers give its last write by the same rule, over the same partitions: a partition
// of records without a known time makes the topic's unknown, however recent the others'.
func TestTopicWritersLastWriteUnknownPartition(t *testing.T) {
	at := func(ms int64) *int64 { return &ms }
	twoDaysAgo := at(1_000)
	cases := []struct {
		name       string
		partitions []PartitionWriters
		want       *int64
	}{
		{"a partition of records without a timestamp", []PartitionWriters{{Partition: 0, HighWatermark: 3}, {Partition: 1, HighWatermark: 1, MaxTimestamp: twoDaysAgo}}, nil},
		{"every partition known", []PartitionWriters{{Partition: 0, HighWatermark: 3, MaxTimestamp: at(5_000)}, {Partition: 1, HighWatermark: 1, MaxTimestamp: twoDaysAgo}}, at(5_000)},
		{"an empty partition", []PartitionWriters{{Partition: 0, LogStartOffset: 3, HighWatermark: 3}, {Partition: 1, HighWatermark: 1, MaxTimestamp: twoDaysAgo}}, twoDaysAgo},
	}
	for _, c := range cases {
		w := TopicWriters{Name: "t", Partitions: c.partitions}
		if got := w.LastWrite(); show(got) != show(c.want) {
			t.Errorf("%s: last write %s, want %s", c.name, show(got), show(c.want))
		}
		if got := LastWrite([]TopicWriters{w}); show(got) != show(c.want) {
			t.Errorf("%s: last write of every topic %s, want %s", c.name, show(got), show(c.want))
		}
	}
}
