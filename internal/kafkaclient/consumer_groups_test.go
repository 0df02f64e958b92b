package kafkaclient

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

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
		// total_lag is null where records wait on a partition without a commit (a/2 for app.one and
		// xapp.one, b/1 for app.three, a/0 for app.two) or a commit lies past the log end (app.two's
		// b/1): a sum without them would read 0 for xapp.one while a/2's record waits.
		{name: "all", req: ConsumerGroupsRequest{},
			want: `[app.one Empty "" [a] null][app.three Empty "" [b c] null][app.two Empty "" [a b] null][other Empty "" [c] 1][xapp.one Empty "" [a] null]`},
		// Whole id: app\..* does not select xapp.one.
		{name: "id regex", req: ConsumerGroupsRequest{GroupID: re(`app\..*`)},
			want: `[app.one Empty "" [a] null][app.three Empty "" [b c] null][app.two Empty "" [a b] null]`},
		// Only groups with a commit on b, and only b in their figures.
		{name: "topic b", req: ConsumerGroupsRequest{Topics: []string{"b"}},
			want: `[app.three Empty "" [b] null][app.two Empty "" [b] null]`},
		{name: "topics c and id", req: ConsumerGroupsRequest{Topics: []string{"c"}, GroupID: re(`app.*`)},
			want: `[app.three Empty "" [c] 2]`},
		{name: "no match", req: ConsumerGroupsRequest{GroupID: re(`nobody`)}, want: ``},
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
// broker, one OffsetFetch per coordinator (v8+ carries all its groups), and per leader of the
// partitions of the topics the groups read two ListOffsets written at once (earliest and latest:
// the caught-up verdict asks whether records wait where a group has no commit). No FindCoordinator, and no describe request: these groups have no
// members (assignments.go asks only about groups with members). Below OffsetFetch v8 (a
// cluster that says it is Kafka 2.8), one OffsetFetch per group.
func TestConsumerGroupsRequests(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []kfake.Opt
		batched bool
	}{
		{name: "OffsetFetch v8+", opts: nil, batched: true},
		{name: "Kafka 2.8: OffsetFetch v7", opts: []kfake.Opt{kfake.MaxVersions(kversion.V2_8_0())}, batched: false},
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
			}{{topic: "a", p: 0}, {topic: "a", p: 1}, {topic: "a", p: 2}, {topic: "b", p: 0}, {topic: "b", p: 1}, {topic: "c", p: 0}} {
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
			// No topics named: DescribeLogDirs to each broker, for the topics the principal may not
			// see (coverage.go).
			expectRequests(t, counts, dials, map[kmsg.Key]int{
				kmsg.Metadata: 1, kmsg.ListGroups: 3, kmsg.OffsetFetch: offsetFetches, kmsg.ListOffsets: 2 * len(leaders),
				kmsg.DescribeLogDirs: 3,
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
