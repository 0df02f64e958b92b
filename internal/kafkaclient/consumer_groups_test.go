package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// groupsCluster: three brokers; topics a (3 partitions), b (2), c (1) with records; groups with
// admin commits (kfake lists them Empty, protocol type "").
func groupsCluster(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c := newCluster(t, append([]kfake.Opt{kfake.NumBrokers(3), kfake.SeedTopics(3, "a"), kfake.SeedTopics(2, "b"),
		kfake.SeedTopics(1, "c")}, opts...)...)
	produce(t, c, "a", 0, 4)
	produce(t, c, "a", 2, 1)
	produce(t, c, "b", 1, 7)
	produce(t, c, "c", 0, 2)
	acctest.FakeCommit(t, c, "app.one", "a", 0, 1)   // lag 3
	acctest.FakeCommit(t, c, "app.one", "a", 1, 0)   // lag 0 (empty partition)
	acctest.FakeCommit(t, c, "app.two", "b", 1, 10)  // lag -3: past the log end, not counted
	acctest.FakeCommit(t, c, "app.two", "a", 2, 0)   // lag 1
	acctest.FakeCommit(t, c, "other", "c", 0, 1)     // lag 1
	acctest.FakeCommit(t, c, "xapp.one", "a", 0, 4)  // lag 0
	acctest.FakeCommit(t, c, "app.three", "c", 0, 0) // lag 2
	acctest.FakeCommit(t, c, "app.three", "b", 0, 0) // lag 0
	return c
}

func showGroups(gs []GroupSummary) string {
	s := ""
	for _, g := range gs {
		lag := "null"
		if g.TotalLag != nil {
			lag = fmt.Sprint(*g.TotalLag)
		}
		s += fmt.Sprintf("[%s %s %q %v %s]", g.GroupID, g.State, g.ProtocolType, g.Topics, lag)
	}
	return s
}

func TestConsumerGroupsFilters(t *testing.T) {
	c := groupsCluster(t)
	cl := newClient(t, c, 5*time.Second)
	re := func(p string) *regexp.Regexp {
		r, err := WholeMatch(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range []struct {
		name string
		req  ConsumerGroupsRequest
		want string
	}{
		{"all", ConsumerGroupsRequest{},
			`[app.one Empty "" [a] 3][app.three Empty "" [b c] 2][app.two Empty "" [a b] 1][other Empty "" [c] 1][xapp.one Empty "" [a] 0]`},
		// Whole id: app\..* does not select xapp.one.
		{"id regex", ConsumerGroupsRequest{GroupID: re(`app\..*`)},
			`[app.one Empty "" [a] 3][app.three Empty "" [b c] 2][app.two Empty "" [a b] 1]`},
		// Only groups with a commit on b, and only b in their figures.
		{"topic b", ConsumerGroupsRequest{Topics: []string{"b"}},
			`[app.three Empty "" [b] 0][app.two Empty "" [b] 0]`},
		{"topics c and id", ConsumerGroupsRequest{Topics: []string{"c"}, GroupID: re(`app.*`)},
			`[app.three Empty "" [c] 2]`},
		{"no match", ConsumerGroupsRequest{GroupID: re(`nobody`)}, ``},
	} {
		got, err := cl.ConsumerGroups(context.Background(), tc.req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if s := showGroups(got); s != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.name, s, tc.want)
		}
	}

	_, err := cl.ConsumerGroups(context.Background(), ConsumerGroupsRequest{Topics: []string{"a", "missing"}})
	var tnf *TopicNotFoundError
	if !errors.As(err, &tnf) || tnf.Topic != "missing" {
		t.Fatalf("a filter topic that does not exist: got %v, want TopicNotFoundError for %q", err, "missing")
	}
}

// What one kafka_consumer_groups read costs: one Metadata (every topic), ListGroups on each
// broker, one OffsetFetch per coordinator (v8+ carries all its groups), ListOffsets per leader of
// the committed partitions. No FindCoordinator, and no describe request: these groups have no
// members (assignments.go asks only about groups with members). Below OffsetFetch v8 (a
// cluster that says it is Kafka 2.8), one OffsetFetch per group.
func TestConsumerGroupsRequests(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []kfake.Opt
		batched bool
	}{
		{"OffsetFetch v8+", nil, true},
		{"Kafka 2.8: OffsetFetch v7", []kfake.Opt{kfake.MaxVersions(kversion.V2_8_0())}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := groupsCluster(t, tc.opts...)
			groups := []string{"app.one", "app.three", "app.two", "other", "xapp.one"}
			coordinators := map[int32]bool{}
			for _, g := range groups {
				coordinators[c.CoordinatorFor(g)] = true
			}
			leaders := map[int32]bool{}
			for _, tp := range []struct {
				topic string
				p     int32
			}{{"a", 0}, {"a", 1}, {"a", 2}, {"b", 0}, {"b", 1}, {"c", 0}} {
				leaders[c.LeaderFor(tp.topic, tp.p)] = true
			}
			counts := acctest.CountRequests(c)
			cl, dials := countingClient(t, c)
			got, err := cl.ConsumerGroups(context.Background(), ConsumerGroupsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(groups) {
				t.Fatalf("got %s", showGroups(got))
			}
			offsetFetches := len(groups)
			if tc.batched {
				offsetFetches = len(coordinators)
			}
			expectRequests(t, counts, dials, map[kmsg.Key]int{
				kmsg.Metadata: 1, kmsg.ListGroups: 3, kmsg.OffsetFetch: offsetFetches, kmsg.ListOffsets: len(leaders),
			})
		})
	}
}

// A cluster without any group: ListGroups only, then nothing (no FindCoordinator, which would
// create __consumer_offsets on Apache Kafka).
func TestConsumerGroupsNoGroups(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(2), kfake.SeedTopics(1, "t"))
	counts := acctest.CountRequests(c)
	cl, dials := countingClient(t, c)
	got, err := cl.ConsumerGroups(context.Background(), ConsumerGroupsRequest{})
	if err != nil || len(got) != 0 {
		t.Fatalf("got %v, %v; want no groups", got, err)
	}
	expectRequests(t, counts, dials, map[kmsg.Key]int{kmsg.Metadata: 1, kmsg.ListGroups: 2})
}

// COORDINATOR_LOAD_IN_PROGRESS from ListGroups (a broker loading its groups after a restart) is
// retried; the answer then is complete.
func TestConsumerGroupsRetriesLoadingCoordinator(t *testing.T) {
	c := groupsCluster(t)
	failures := 2
	c.ControlKey(int16(kmsg.ListGroups), func(r kmsg.Request) (kmsg.Response, error, bool) {
		if failures == 0 {
			return nil, nil, false
		}
		failures--
		c.KeepControl()
		resp := kmsg.NewPtrListGroupsResponse()
		resp.Version = r.GetVersion()
		resp.ErrorCode = 14 // COORDINATOR_LOAD_IN_PROGRESS
		return resp, nil, true
	})
	cl := newClient(t, c, 5*time.Second)
	got, err := cl.ConsumerGroups(context.Background(), ConsumerGroupsRequest{})
	if err != nil || len(got) != 5 {
		t.Fatalf("got %s, %v; want 5 groups", showGroups(got), err)
	}
}
