// Package acctest is shared by the acceptance tests: it connects to the real broker that
// tools/kafka.sh started, arranges topics and records with franz-go (an independent client), and
// reads offsets back with franz-go's kadm as the oracle the provider's answers are checked against.
package acctest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// BootstrapServers returns the broker address from KAFKA_BOOTSTRAP_SERVERS. Without TF_ACC the
// test is skipped, as terraform-plugin-testing does; with TF_ACC (`make testacc` starts the broker
// and sets both) a missing address fails the test, so an acceptance run never passes without Kafka.
func BootstrapServers(t testing.TB) []string {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: runs with TF_ACC=1 against a real broker (make testacc)")
	}
	v := os.Getenv("KAFKA_BOOTSTRAP_SERVERS")
	if v == "" {
		t.Fatal("KAFKA_BOOTSTRAP_SERVERS is not set: run the acceptance tests with `make testacc`, " +
			"which starts a local Kafka broker (tools/kafka.sh)")
	}
	return strings.Split(v, ",")
}

// ProviderBlock is a provider "kafka" block for the test broker. Its timeout is a minute: on a busy
// 2-core machine (CI's legs side by side) a read that succeeds alone took past 30 s, and a timeout
// that fails a test under load is the test's defect; the tests of timeouts set their own.
func ProviderBlock(t testing.TB) string {
	t.Helper()
	var quoted []string
	for _, s := range BootstrapServers(t) {
		quoted = append(quoted, `"`+s+`"`)
	}
	return "provider \"kafka\" {\n  bootstrap_servers = [" + strings.Join(quoted, ", ") + "]\n  timeout = \"60s\"\n}\n"
}

// Kafka is a franz-go client and admin client on the test broker, closed with the test.
type Kafka struct {
	t     testing.TB
	Kgo   *kgo.Client
	Admin *kadm.Client
}

// Connect opens the independent client.
func Connect(t testing.TB) *Kafka {
	t.Helper()
	return ConnectTo(t, BootstrapServers(t)...)
}

// ConnectTo opens the independent client on another cluster (FreshBroker's).
func ConnectTo(t testing.TB, bootstrapServers ...string) *Kafka {
	t.Helper()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(bootstrapServers...),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return &Kafka{t: t, Kgo: cl, Admin: kadm.NewClient(cl)}
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

var unsafe = regexp.MustCompile(`[^a-zA-Z0-9._-]+`)

// TopicName makes a unique topic name from the test's name and a suffix such as ".dots_and-dashes".
func TopicName(t testing.TB, suffix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "tfacc-" + unsafe.ReplaceAllString(t.Name(), "_") + "-" + hex.EncodeToString(b) + suffix
	if len(name) > 249 {
		name = name[len(name)-249:]
	}
	return name
}

// CreateTopic creates a topic with the given partitions and configs and deletes it after the test.
func (k *Kafka) CreateTopic(name string, partitions int32, configs map[string]*string) string {
	k.t.Helper()
	// kadm gives the topic's own error as err: REQUEST_TIMED_OUT there (a busy broker creating
	// hundreds of partitions) means the creation goes on, and the leaders are waited for.
	_, err := k.Admin.CreateTopic(ctx(k.t), partitions, 1, configs, name)
	if err = stillCreating(k.t, name, err); err != nil {
		k.t.Fatalf("create topic %s: %v", name, err)
	}
	k.t.Cleanup(func() { _, _ = k.Admin.DeleteTopics(context.Background(), name) })
	k.waitForLeaders(name, partitions)
	return name
}

// AddPartitions grows a topic by n partitions (CreatePartitions) and waits for their leaders.
func (k *Kafka) AddPartitions(topic string, n int) {
	k.t.Helper()
	res, err := k.Admin.CreatePartitions(ctx(k.t), n, topic)
	if err == nil {
		err = stillCreating(k.t, topic, res.Error())
	}
	if err != nil {
		k.t.Fatalf("add %d partitions to %s: %v", n, topic, err)
	}
	k.waitForLeaders(topic, int32(k.PartitionCount(topic)))
	k.Kgo.PurgeTopicsFromClient(topic) // the producer learns the new partitions on its next record
}

// DeleteTopic deletes a topic and waits, up to 30 s, until kadm's metadata no longer lists it.
func (k *Kafka) DeleteTopic(topic string) {
	k.t.Helper()
	if _, err := k.Admin.DeleteTopic(ctx(k.t), topic); err != nil {
		k.t.Fatalf("delete topic %s: %v", topic, err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		details, err := k.Admin.ListTopics(ctx(k.t), topic)
		if d, listed := details[topic]; err == nil && (!listed || errors.Is(d.Err, kerr.UnknownTopicOrPartition)) {
			return
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("topic %s is still listed 30 s after its deletion (%v)", topic, err)
		}
	}
}

// RecreateTopic deletes a topic and creates it again under the same name, empty, with partitions
// partitions: retried while the broker still finishes the deletion (TOPIC_ALREADY_EXISTS).
func (k *Kafka) RecreateTopic(topic string, partitions int32) {
	k.t.Helper()
	if _, err := k.Admin.DeleteTopic(ctx(k.t), topic); err != nil {
		k.t.Fatalf("delete topic %s: %v", topic, err)
	}
	deadline := time.Now().Add(leadersWait)
	for {
		res, err := k.Admin.CreateTopic(ctx(k.t), partitions, 1, nil, topic)
		if err == nil {
			err = stillCreating(k.t, topic, res.Err)
		}
		if err == nil {
			break
		}
		if !errors.Is(err, kerr.TopicAlreadyExists) || time.Now().After(deadline) {
			k.t.Fatalf("create topic %s again: %v", topic, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	k.waitForLeaders(topic, partitions)
	k.Kgo.PurgeTopicsFromClient(topic) // the producer learns the new topic ID on its next record
}

// stillCreating reads REQUEST_TIMED_OUT from CreateTopics or CreatePartitions as "accepted, not yet done": a
// ZooKeeper-mode broker answers it when the partitions' leaders take longer than the request's
// timeout (300 partitions on a busy CI machine did), yet goes on creating them. waitForLeaders,
// which follows, then decides whether the topic is there.
func stillCreating(t testing.TB, topic string, err error) error {
	if errors.Is(err, kerr.RequestTimedOut) {
		t.Logf("create topic %s: %v; waiting for its leaders", topic, err)
		return nil
	}
	return err
}

// leadersWait bounds waitForLeaders: a broker busy with many tests' Terraform processes (CI saw one
// take over 20 s) is slow, not broken.
const leadersWait = 60 * time.Second

// waitForLeaders waits until every partition of the new topic answers ListOffsets.
func (k *Kafka) waitForLeaders(topic string, partitions int32) {
	k.t.Helper()
	deadline := time.Now().Add(leadersWait)
	for {
		listed, err := k.Admin.ListEndOffsets(ctx(k.t), topic)
		ok := err == nil
		if ok {
			n := 0
			listed.Each(func(o kadm.ListedOffset) {
				if o.Err == nil {
					n++
				}
			})
			ok = n == int(partitions)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("topic %s: partitions not ready after %s: %v", topic, leadersWait, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Produce writes n records to one partition and waits for the broker's acknowledgement.
func (k *Kafka) Produce(topic string, partition int32, n int) {
	k.t.Helper()
	records := make([]*kgo.Record, n)
	for i := range records {
		records[i] = &kgo.Record{Topic: topic, Partition: partition, Value: []byte("record")}
	}
	if err := k.Kgo.ProduceSync(ctx(k.t), records...).FirstErr(); err != nil {
		k.t.Fatalf("produce to %s/%d: %v", topic, partition, err)
	}
}

// DeleteRecordsBefore moves the partition's log start offset to offset (Kafka's DeleteRecords).
func (k *Kafka) DeleteRecordsBefore(topic string, partition int32, offset int64) {
	k.t.Helper()
	var o kadm.Offsets
	o.Add(kadm.Offset{Topic: topic, Partition: partition, At: offset, LeaderEpoch: -1})
	res, err := k.Admin.DeleteRecords(ctx(k.t), o)
	if err == nil {
		err = res.Error()
	}
	if err != nil {
		k.t.Fatalf("delete records of %s/%d before %d: %v", topic, partition, offset, err)
	}
}

// Offsets is the oracle: kadm's log start offset and high watermark of one partition.
func (k *Kafka) Offsets(topic string, partition int32) (earliest, latest int64) {
	k.t.Helper()
	start, err := k.Admin.ListStartOffsets(ctx(k.t), topic)
	if err == nil {
		err = start.Error()
	}
	end, err2 := k.Admin.ListEndOffsets(ctx(k.t), topic)
	if err == nil {
		err = err2
	}
	if err == nil {
		err = end.Error()
	}
	if err != nil {
		k.t.Fatalf("oracle offsets of %s: %v", topic, err)
	}
	s, ok1 := start.Lookup(topic, partition)
	e, ok2 := end.Lookup(topic, partition)
	if !ok1 || !ok2 {
		k.t.Fatalf("oracle has no offsets for %s/%d", topic, partition)
	}
	return s.Offset, e.Offset
}

// Topics lists every topic in the cluster, internal ones included, sorted.
func (k *Kafka) Topics() []string {
	k.t.Helper()
	details, err := k.Admin.ListTopicsWithInternal(ctx(k.t))
	if err != nil {
		k.t.Fatalf("list topics: %v", err)
	}
	names := details.Names()
	sort.Strings(names)
	return names
}

// EnsureConsumerOffsetsTopic commits one offset for a throwaway group, which makes the broker
// create its internal __consumer_offsets topic, and waits until partition 0 answers.
func (k *Kafka) EnsureConsumerOffsetsTopic() {
	k.t.Helper()
	topic := k.CreateTopic(TopicName(k.t, ""), 1, nil)
	k.Produce(topic, 0, 1)
	var o kadm.Offsets
	o.Add(kadm.Offset{Topic: topic, Partition: 0, At: 1, LeaderEpoch: -1})
	res, err := k.Admin.CommitOffsets(ctx(k.t), "tfacc-"+topic, o)
	if err == nil {
		err = res.Error()
	}
	if err != nil {
		k.t.Fatalf("commit an offset to create __consumer_offsets: %v", err)
	}
	details, err := k.Admin.ListTopicsWithInternal(ctx(k.t), "__consumer_offsets")
	if err != nil {
		k.t.Fatal(err)
	}
	k.waitForLeaders("__consumer_offsets", int32(len(details["__consumer_offsets"].Partitions)))
}
