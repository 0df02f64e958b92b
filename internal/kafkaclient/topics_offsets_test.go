package kafkaclient

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

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

	got, err := cl.TopicsOffsets(context.Background(), *wholeMatch(t, `orders\..*`))
	if err != nil {
		t.Fatal(err)
	}
	want := "[orders.a internal=false [0:0-4 1:0-0 2:0-1]] [orders.b internal=false [0:0-0 1:0-7]]"
	if s := showTopics(got); s != want {
		t.Fatalf("got  %s\nwant %s", s, want)
	}

	none, err := cl.TopicsOffsets(context.Background(), *wholeMatch(t, `nothing.*`))
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
			got, err := cl.TopicsOffsets(context.Background(), TopicsOffsetsRequest{IncludeInternal: tc.include})
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
	got, err := cl.TopicsOffsets(context.Background(), TopicsOffsetsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n || got[7].Name != "t007" || got[7].Partitions[1].Latest != 3 {
		t.Fatalf("got %d topics, t007: %+v", len(got), got[7])
	}
	expectRequests(t, counts, dials, map[kmsg.Key]int{kmsg.Metadata: 1, kmsg.ListOffsets: 2 * len(leaders)})
}
