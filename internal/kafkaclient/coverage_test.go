package kafkaclient

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// holdTopics makes every broker of c answer DescribeLogDirs with one log directory holding
// topics, as Apache Kafka answers a principal with DESCRIBE on the cluster, whatever it may
// DESCRIBE of the topics; and Metadata asked by name for one of hidden with
// TOPIC_AUTHORIZATION_FAILED, as Kafka answers for a topic the principal may not DESCRIBE (which
// Metadata for every topic leaves out: kfake has no such topic, so it leaves it out too).
func holdTopics(c *kfake.Cluster, topics []string, hidden ...string) {
	c.ControlKey(int16(kmsg.DescribeLogDirs), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		res := kmsg.NewPtrDescribeLogDirsResponse()
		res.Version = r.GetVersion()
		dir := kmsg.NewDescribeLogDirsResponseDir()
		dir.Dir = "/var/lib/kafka"
		for _, t := range topics {
			dt := kmsg.NewDescribeLogDirsResponseDirTopic()
			dt.Topic = t
			dt.Partitions = []kmsg.DescribeLogDirsResponseDirTopicPartition{kmsg.NewDescribeLogDirsResponseDirTopicPartition()}
			dir.Topics = append(dir.Topics, dt)
		}
		res.Dirs = append(res.Dirs, dir)
		return res, nil, true
	})
	c.ControlKey(int16(kmsg.Metadata), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req, ok := r.(*kmsg.MetadataRequest)
		if !ok || len(req.Topics) != 1 || req.Topics[0].Topic == nil || !slices.Contains(hidden, *req.Topics[0].Topic) {
			return nil, nil, false
		}
		res := kmsg.NewPtrMetadataResponse()
		res.Version = r.GetVersion()
		t := kmsg.NewMetadataResponseTopic()
		t.Topic, t.ErrorCode = req.Topics[0].Topic, 29 // TOPIC_AUTHORIZATION_FAILED
		res.Topics = append(res.Topics, t)
		return res, nil, true
	})
}

// A group read without topics, where the principal may not DESCRIBE a topic the group commits
// on: OffsetFetch and Metadata leave the topic out, the brokers' log directories show it, and
// Metadata by name says TOPIC_AUTHORIZATION_FAILED. The verdict is not caught up, naming it, and
// its totals are unknown; both group data sources say so.
func TestHiddenTopicIsNotCaughtUp(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(2), kfake.SeedTopics(1, "ta"))
	produce(t, c, "ta", 0, 5)
	acctest.FakeCommit(t, c, "g", "ta", 0, 5)
	holdTopics(c, []string{"ta", "tb"}, "tb")
	cl := newClient(t, c, 5*time.Second)
	want := regexp.MustCompile(`^topics not seen: the provider's principal may not DESCRIBE 1 topic of the cluster \(tb\), ` +
		`which Kafka leaves out of the read`)

	got, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	if err != nil {
		t.Fatal(err)
	}
	if got.CaughtUp || len(got.NotCaughtUp) != 1 || !want.MatchString(got.NotCaughtUp[0]) || got.TotalLag != nil {
		t.Fatalf("got %+v, want not caught up for the hidden topic tb alone, total lag unknown", got.Verdict)
	}
	groups, err := cl.ConsumerGroups(context.Background(), ConsumerGroupsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 || !slices.Equal(groups[0].NotCaughtUp, got.NotCaughtUp) || groups[0].TotalLag != nil {
		t.Fatalf("kafka_consumer_groups: %s, want the same verdict as the group read's %q", showGroups(groups), got.NotCaughtUp)
	}
	// With the topic named, the read covers that topic alone: caught up.
	got, err = cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g", Topics: []string{"ta"}})
	if err != nil || !got.CaughtUp || got.TotalLag == nil || *got.TotalLag != 0 {
		t.Fatalf("with topics = [ta]: %+v, %v; want caught up, total lag 0", got.Verdict, err)
	}
}

// Where the brokers cannot say which topics they hold, the read cannot vouch for every topic: a
// principal without DESCRIBE on the cluster (DescribeLogDirs v3+ answers
// CLUSTER_AUTHORIZATION_FAILED, v0-v2 no log directory), or a broker that does not serve
// DescribeLogDirs.
func TestUnverifiedTopicsAreNotCaughtUp(t *testing.T) {
	refuse := func(v3 bool) func(c *kfake.Cluster) {
		return func(c *kfake.Cluster) {
			c.ControlKey(int16(kmsg.DescribeLogDirs), func(r kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				res := kmsg.NewPtrDescribeLogDirsResponse()
				res.Version = r.GetVersion()
				if v3 {
					res.ErrorCode = 31 // CLUSTER_AUTHORIZATION_FAILED
				}
				return res, nil, true
			})
		}
	}
	for _, tc := range []struct {
		name    string
		opts    []kfake.Opt
		control func(c *kfake.Cluster)
		want    string
		grant   bool // the reason advises DESCRIBE on the cluster: only where it can help
	}{
		{"refused (v3+)", nil, refuse(true), `answered DescribeLogDirs with CLUSTER_AUTHORIZATION_FAILED \(error code 31\)\)`, true},
		{"no log directory (before v3)", nil, refuse(false), `answered DescribeLogDirs with no log directory \(it needs DESCRIBE on the cluster\)\)`, true},
		{"not served", []kfake.Opt{kfake.MaxVersions(withoutKey(kmsg.DescribeLogDirs))}, nil, `does not serve DescribeLogDirs, which no ACL changes\)`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, append(tc.opts, kfake.SeedTopics(1, "ta"))...)
			produce(t, c, "ta", 0, 5)
			acctest.FakeCommit(t, c, "g", "ta", 0, 5)
			if tc.control != nil {
				tc.control(c)
			}
			got, err := newClient(t, c, 5*time.Second).GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
			if err != nil {
				t.Fatal(err)
			}
			want := regexp.MustCompile(`^topics not seen: cannot tell whether the provider's principal may DESCRIBE every topic \(.*` + tc.want)
			if got.CaughtUp || len(got.NotCaughtUp) != 1 || !want.MatchString(got.NotCaughtUp[0]) || got.TotalLag != nil {
				t.Fatalf("got %+v, want not caught up, saying %s", got.Verdict, want)
			}
			const grant = "or grant the principal DESCRIBE on the cluster"
			if strings.Contains(got.NotCaughtUp[0], grant) != tc.grant || DescribeClusterHelps(got.Unseen) != tc.grant {
				t.Fatalf("%q: advises an ACL on the cluster: %t, want %t", got.NotCaughtUp[0], !tc.grant, tc.grant)
			}
		})
	}
}

// Kafka's own topics do not count as hidden, and a topic deleted between the two Metadata
// requests (UNKNOWN_TOPIC_OR_PARTITION by name) is no topic the group reads.
func TestInternalAndDeletedTopicsAreNotHidden(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "ta"))
	produce(t, c, "ta", 0, 5)
	acctest.FakeCommit(t, c, "g", "ta", 0, 5)
	holdTopics(c, []string{"ta", "__transaction_state", "gone"}, "__transaction_state")
	got, err := newClient(t, c, 5*time.Second).GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	if err != nil || !got.CaughtUp || got.Unseen != "" {
		t.Fatalf("got %+v, %v; want caught up", got.Verdict, err)
	}
}

// withoutKey is the API versions of Kafka 4.0 without key.
func withoutKey(key kmsg.Key) *kversion.Versions {
	v := kversion.V4_0_0()
	v.SetMaxKeyVersion(int16(key), -1)
	return v
}

// kafka_topics_offsets (found by a fresh user): Kafka leaves a topic the principal may
// not DESCRIBE out of Metadata, and a read by pattern would show the selection without it. A
// hidden topic the pattern matches fails the read, naming it; one it does not match, or an
// internal topic, does not; where the brokers cannot say which topics they hold, the read says
// why beside its answer.
func TestTopicsOffsetsHiddenTopics(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(2), kfake.SeedTopics(1, "legacy.a"))
	produce(t, c, "legacy.a", 0, 3)
	holdTopics(c, []string{"legacy.a", "legacy.b", "other", "__consumer_offsets"}, "legacy.b", "other", "__consumer_offsets")
	cl := newClient(t, c, 5*time.Second)
	re := func(p string) *regexp.Regexp {
		r, err := WholeMatch(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	_, _, err := cl.TopicsOffsets(context.Background(), TopicsOffsetsRequest{Name: re(`legacy\..*`)})
	var hidden *TopicsHiddenError
	if !errors.As(err, &hidden) || !slices.Equal(hidden.Topics, []string{"legacy.b"}) {
		t.Fatalf("got %v, want a TopicsHiddenError naming legacy.b alone", err)
	}
	got, unseen, err := cl.TopicsOffsets(context.Background(), TopicsOffsetsRequest{Name: re(`legacy\.a`)})
	if err != nil || unseen != "" || len(got) != 1 || got[0].Partitions[0].Latest != 3 {
		t.Fatalf("legacy.a alone: got %+v, %q, %v; want its offsets, nothing hidden", got, unseen, err)
	}

	refused := newCluster(t, kfake.SeedTopics(1, "legacy.a"))
	refused.ControlKey(int16(kmsg.DescribeLogDirs), func(r kmsg.Request) (kmsg.Response, error, bool) {
		refused.KeepControl()
		res := kmsg.NewPtrDescribeLogDirsResponse()
		res.Version, res.ErrorCode = r.GetVersion(), 31 // CLUSTER_AUTHORIZATION_FAILED
		return res, nil, true
	})
	got, unseen, err = newClient(t, refused, 5*time.Second).TopicsOffsets(context.Background(), TopicsOffsetsRequest{Name: re(`legacy\..*`)})
	if err != nil || len(got) != 1 || !strings.Contains(unseen, "CLUSTER_AUTHORIZATION_FAILED") {
		t.Fatalf("DescribeLogDirs refused: got %d topics, unseen %q, %v; want the topic and why the read cannot tell", len(got), unseen, err)
	}
}
