package kafkaclient

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// countEveryTopicMetadata counts the Metadata requests for every topic (a null topic list) that c
// receives, without handling any.
func countEveryTopicMetadata(c *kfake.Cluster) func() int {
	var mu sync.Mutex
	n := 0
	c.ControlKey(int16(kmsg.Metadata), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if req, ok := r.(*kmsg.MetadataRequest); ok && req.Topics == nil {
			mu.Lock()
			n++
			mu.Unlock()
		}
		return nil, nil, false
	})
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
}

// manyTopicsCluster: three brokers, 30 topics of 4 partitions, and 10 groups g0..g9, group gi
// with a commit on topic ti.
func manyTopicsCluster(t *testing.T) *kfake.Cluster {
	t.Helper()
	var topics []string
	for i := range 30 {
		topics = append(topics, fmt.Sprintf("t%d", i))
	}
	c := newCluster(t, kfake.NumBrokers(3), withOffsetsTopic(), kfake.SeedTopics(4, topics...))
	for i := range 10 {
		produce(t, c, topics[i], 0, 2)
		acctest.FakeCommit(t, c, fmt.Sprintf("g%d", i), topics[i], 0, 2)
	}
	return c
}

// createTopic creates topic with partitions on c (kadm).
func createTopic(t *testing.T, c *kfake.Cluster, topic string, partitions int32) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	res, err := kadm.NewClient(cl).CreateTopic(context.Background(), partitions, 1, nil, topic)
	if err == nil {
		err = res.Err
	}
	if err != nil {
		t.Fatal(err)
	}
}

// inTurn runs reads, parallel at a time as Terraform's walk does (-parallelism: a read starts as
// soon as one ends), and fails on the first error.
func inTurn(t *testing.T, parallel int, reads []func() error) {
	t.Helper()
	sem := make(chan struct{}, parallel)
	errs := make(chan error, len(reads))
	for _, read := range reads {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- read()
		}()
	}
	for range reads {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// A plan of 100 group reads without topics, beside the other reads of what the cluster holds
// (kafka_consumer_groups, kafka_topics_offsets, kafka_topic_producers by pattern), 10 at a time
// through one Client, asks for it once: one Metadata request for every topic, and DescribeLogDirs
// once per broker (one of each per read before). Each read still says what it saw.
func TestReadsInFlightShareWhatTheClusterHolds(t *testing.T) {
	c := manyTopicsCluster(t)
	logDirs := acctest.CountRequestsByBroker(c, int16(kmsg.DescribeLogDirs))
	everyTopic := countEveryTopicMetadata(c)
	cl := newClient(t, c, 30*time.Second)
	cl.cluster.holdings.maxAge, cl.cluster.holdings.idle = time.Hour, time.Hour // a loaded machine must not split the plan
	ctx := context.Background()
	pattern, err := WholeMatch(`t1.*`)
	if err != nil {
		t.Fatal(err)
	}
	numbered, err := WholeMatch(`t\d+`) // kfake's __consumer_offsets is no internal topic
	if err != nil {
		t.Fatal(err)
	}
	var reads []func() error
	for i := range 100 {
		group := fmt.Sprintf("g%d", i%10)
		reads = append(reads, func() error {
			res, err := cl.GroupOffsets(ctx, GroupOffsetsRequest{GroupID: group})
			if err == nil && (!res.CaughtUp || res.Unseen != "" || len(res.Partitions) != 4) {
				err = fmt.Errorf("group %s: %+v, want caught up on the 4 partitions of its topic, nothing unseen", group, res)
			}
			return err
		})
		switch i % 20 {
		case 5:
			reads = append(reads, func() error {
				gs, err := cl.ConsumerGroups(ctx, ConsumerGroupsRequest{})
				if err == nil && len(gs) != 10 {
					err = fmt.Errorf("kafka_consumer_groups: %s, want 10 groups", showGroups(gs))
				}
				return err
			})
		case 10:
			reads = append(reads, func() error {
				ts, unseen, err := cl.TopicsOffsets(ctx, TopicsOffsetsRequest{Name: numbered})
				if err == nil && (len(ts) != 30 || unseen != "") {
					err = fmt.Errorf("kafka_topics_offsets: %d topics, unseen %q; want 30, nothing unseen", len(ts), unseen)
				}
				return err
			})
		case 15:
			reads = append(reads, func() error {
				w, err := cl.TopicProducers(ctx, TopicProducersRequest{Name: pattern})
				if err == nil && len(w.Topics) != 11 { // t1, t10..t19
					err = fmt.Errorf("kafka_topic_producers: %d topics, want 11", len(w.Topics))
				}
				return err
			})
		}
	}
	inTurn(t, 10, reads)
	if n := everyTopic(); n != 1 {
		t.Errorf("Metadata for every topic: %d requests, want 1", n)
	}
	if got := logDirs(); len(got) != 3 || slices.Max(slices.Collect(mapValues(got))) != 1 {
		t.Errorf("DescribeLogDirs by broker: %v, want one to each of the 3 brokers", got)
	}
}

func mapValues[K comparable, V any](m map[K]V) func(func(V) bool) {
	return func(yield func(V) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// heldTopicsControl answers DescribeLogDirs with the topics held() gives, and Metadata by name for
// one of hidden() with TOPIC_AUTHORIZATION_FAILED (holdTopics, whose topics change as the test
// goes).
func heldTopicsControl(c *kfake.Cluster) (set func(held []string, hidden ...string)) {
	var (
		mu           sync.Mutex
		held, hidden []string
	)
	c.ControlKey(int16(kmsg.DescribeLogDirs), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		res := kmsg.NewPtrDescribeLogDirsResponse()
		res.Version = r.GetVersion()
		dir := kmsg.NewDescribeLogDirsResponseDir()
		dir.Dir = "/var/lib/kafka"
		for _, t := range held {
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
		mu.Lock()
		defer mu.Unlock()
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
	return func(h []string, hd ...string) {
		mu.Lock()
		defer mu.Unlock()
		held, hidden = h, hd
	}
}

// Once no read has been in flight for viewIdle, the next one asks again: a wait's polls, a second
// apart at least, each see what the cluster holds then. Here a topic hidden from the principal
// appears between two reads, and the second is not caught up.
func TestReadAfterReadsEndedAsksAgain(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(2), kfake.SeedTopics(1, "ta"))
	produce(t, c, "ta", 0, 5)
	acctest.FakeCommit(t, c, "g", "ta", 0, 5)
	logDirs := acctest.CountRequestsByBroker(c, int16(kmsg.DescribeLogDirs))
	set := heldTopicsControl(c)
	set([]string{"ta"})
	cl := newClient(t, c, 5*time.Second)
	cl.cluster.holdings.maxAge, cl.cluster.holdings.idle = time.Hour, 0 // the poll interval gone by

	got, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	if err != nil || !got.CaughtUp {
		t.Fatalf("first read: %+v, %v; want caught up", got.Verdict, err)
	}
	set([]string{"ta", "tb"}, "tb")
	got, err = cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	if err != nil || got.CaughtUp || len(got.NotCaughtUp) != 1 || !regexp.MustCompile(`DESCRIBE 1 topic of the cluster \(tb\)`).MatchString(got.NotCaughtUp[0]) {
		t.Fatalf("second read: %+v, %v; want not caught up for the hidden topic tb", got.Verdict, err)
	}
	if got := logDirs(); got[0] != 2 || got[1] != 2 {
		t.Errorf("DescribeLogDirs by broker: %v, want 2 to each broker (one per read)", got)
	}
}

// A snapshot older than a read is not where it learns that something does not exist: a topic
// created since, which a read names or a pattern matches, is asked for again with fresh
// metadata; and a snapshot ends at viewMaxAge however long reads keep running.
func TestSnapshotOlderThanReadConfirmsFresh(t *testing.T) {
	c := newCluster(t, withOffsetsTopic(), kfake.SeedTopics(1, "old"))
	produce(t, c, "old", 0, 1)
	acctest.FakeCommit(t, c, "g", "old", 0, 1)
	everyTopic := countEveryTopicMetadata(c)
	cl := newClient(t, c, 5*time.Second)
	cl.cluster.holdings.maxAge = time.Hour
	ctx := context.Background()
	leave := cl.cluster.holdings.enter() // another read in flight all along
	defer leave()
	if _, err := cl.ConsumerGroups(ctx, ConsumerGroupsRequest{}); err != nil {
		t.Fatal(err)
	}
	createTopic(t, c, "new", 2)
	produce(t, c, "new", 1, 3)

	pattern, err := WholeMatch(`new`)
	if err != nil {
		t.Fatal(err)
	}
	w, err := cl.TopicProducers(ctx, TopicProducersRequest{Name: pattern})
	if err != nil || len(w.Topics) != 1 || w.Topics[0].Name != "new" {
		t.Fatalf("kafka_topic_producers of a topic created since: %+v, %v; want the topic", w, err)
	}
	ts, _, err := cl.TopicsOffsets(ctx, TopicsOffsetsRequest{Name: pattern})
	if err != nil || len(ts) != 1 || ts[0].Partitions[1].Latest != 3 {
		t.Fatalf("kafka_topics_offsets of a topic created since: %+v, %v; want its offsets", ts, err)
	}
	if _, err := cl.ConsumerGroups(ctx, ConsumerGroupsRequest{Topics: []string{"new"}}); err != nil {
		t.Fatalf("kafka_consumer_groups on a topic created since: %v; want no error", err)
	}
	before := everyTopic()
	cl.cluster.holdings.maxAge = time.Nanosecond
	if _, err := cl.ConsumerGroups(ctx, ConsumerGroupsRequest{}); err != nil {
		t.Fatal(err)
	}
	if n := everyTopic() - before; n != 1 {
		t.Errorf("after viewMaxAge: %d Metadata requests for every topic, want 1", n)
	}
}

// An attempt after a failure asks for a new snapshot: a broker that closed the connection on
// DescribeLogDirs fails the snapshot it was asked for, and the read's retry asks for both again.
func TestRetryAsksForNewSnapshot(t *testing.T) {
	c := newCluster(t, kfake.NumBrokers(2), withOffsetsTopic(), kfake.SeedTopics(1, "ta"))
	produce(t, c, "ta", 0, 5)
	acctest.FakeCommit(t, c, "g", "ta", 0, 5)
	everyTopic := countEveryTopicMetadata(c)
	var once sync.Once
	c.ControlKey(int16(kmsg.DescribeLogDirs), func(kmsg.Request) (kmsg.Response, error, bool) {
		failed := false
		once.Do(func() { failed = true })
		if failed {
			return nil, fmt.Errorf("connection closed once"), true
		}
		c.KeepControl()
		return nil, nil, false
	})
	cl := newClient(t, c, 10*time.Second)
	cl.cluster.holdings.maxAge = time.Hour
	got, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	if err != nil || !got.CaughtUp {
		t.Fatalf("got %+v, %v; want caught up after a retry", got.Verdict, err)
	}
	if n := everyTopic(); n != 2 {
		t.Errorf("Metadata for every topic: %d requests, want 2 (the retry asks again)", n)
	}
}
