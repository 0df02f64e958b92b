package acctest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Helpers for the tests of kafka_topics_offsets, kafka_consumer_groups and partition_for_key.

// JavaProduceKeyed writes one record per key to topic with Kafka's own kafka-console-producer
// (the Java client and its default partitioner, from the jars tools/kafka.sh downloaded and
// exports as KAFKA_LIBS), with parse.key=true and "|" between key and value.
func JavaProduceKeyed(t testing.TB, topic string, keys []string) {
	t.Helper()
	libs, class := kafkaLibs(t), ToolClass(t, "ConsoleProducer")
	var input bytes.Buffer
	for _, k := range keys {
		if strings.ContainsAny(k, "|\n") {
			t.Fatalf("key %q holds the separator or a newline", k)
		}
		fmt.Fprintf(&input, "%s|value of %s\n", k, k)
	}
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(c, "java", "-Xmx128m", "-XX:TieredStopAtLevel=1",
		"-cp", filepath.Join(libs, "*"), class,
		"--bootstrap-server", strings.Join(BootstrapServers(t), ","), "--topic", topic,
		"--property", "parse.key=true", "--property", "key.separator=|")
	cmd.Stdin = bytes.NewReader(input.Bytes())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kafka-console-producer (%s): %v\n%s", class, err, out)
	}
}

// KeyPartitions reads topic from the start with franz-go until it has n records and returns the
// partition each key landed in.
func (k *Kafka) KeyPartitions(topic string, n int) map[string]int32 {
	k.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(BootstrapServers(k.t)...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		k.t.Fatal(err)
	}
	defer cl.Close()
	out := map[string]int32{}
	seen := 0
	for seen < n {
		fetches := cl.PollFetches(ctx(k.t))
		if err := fetches.Err0(); err != nil {
			k.t.Fatalf("read %s: %v", topic, err)
		}
		fetches.EachRecord(func(r *kgo.Record) {
			seen++
			if r.Key == nil {
				k.t.Fatalf("a record at %s/%d offset %d has a null key", topic, r.Partition, r.Offset)
			}
			if p, ok := out[string(r.Key)]; ok && p != r.Partition {
				k.t.Fatalf("key %q landed in partitions %d and %d", r.Key, p, r.Partition)
			}
			out[string(r.Key)] = r.Partition
		})
	}
	return out
}

// ConnectLikeMember joins group as Kafka Connect's workers do (protocol type "connect", member
// metadata that is not the consumer protocol) and completes the rebalance as its leader, so that
// the group is Stable until the session timeout (30 s) passes without a heartbeat.
func (k *Kafka) ConnectLikeMember(group string) {
	k.t.Helper()
	join := func(member string) *kmsg.JoinGroupResponse {
		req := kmsg.NewPtrJoinGroupRequest()
		req.Group, req.MemberID, req.ProtocolType = group, member, "connect"
		req.SessionTimeoutMillis, req.RebalanceTimeoutMillis = 30_000, 30_000
		p := kmsg.NewJoinGroupRequestProtocol()
		p.Name, p.Metadata = "sessioned", []byte("not the consumer protocol")
		req.Protocols = append(req.Protocols, p)
		resp, err := req.RequestWith(ctx(k.t), k.Kgo)
		if err != nil {
			k.t.Fatalf("JoinGroup %s: %v", group, err)
		}
		return resp
	}
	resp := join("")
	if errors.Is(kerr.ErrorForCode(resp.ErrorCode), kerr.MemberIDRequired) {
		resp = join(resp.MemberID)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		k.t.Fatalf("JoinGroup %s: %v", group, err)
	}
	sync := kmsg.NewPtrSyncGroupRequest()
	sync.Group, sync.Generation, sync.MemberID = group, resp.Generation, resp.MemberID
	sync.ProtocolType, sync.Protocol = kmsg.StringPtr("connect"), resp.Protocol
	a := kmsg.NewSyncGroupRequestGroupAssignment()
	a.MemberID, a.MemberAssignment = resp.MemberID, []byte("assignment")
	sync.GroupAssignment = append(sync.GroupAssignment, a)
	sresp, err := sync.RequestWith(ctx(k.t), k.Kgo)
	if err == nil {
		err = kerr.ErrorForCode(sresp.ErrorCode)
	}
	if err != nil {
		k.t.Fatalf("SyncGroup %s: %v", group, err)
	}
}

// GroupLag is the oracle for a group's total lag over topics (nil: all it committed on): kadm's
// committed offsets and high watermarks, summing the positive lags.
func (k *Kafka) GroupLag(group string, topics ...string) int64 {
	k.t.Helper()
	var total int64
	for topic, ps := range k.GroupCommitted(group) {
		if len(topics) > 0 && !slices.Contains(topics, topic) {
			continue
		}
		for p, committed := range ps {
			if committed < 0 {
				continue
			}
			if _, latest := k.Offsets(topic, p); latest > committed {
				total += latest - committed
			}
		}
	}
	return total
}

// ListedGroups is the oracle for ListGroups: each group's state, protocol type and group type
// (ListGroups v5), by id.
func (k *Kafka) ListedGroups() map[string][3]string {
	k.t.Helper()
	listed, err := k.Admin.ListGroups(ctx(k.t))
	if err != nil {
		k.t.Fatalf("list groups: %v", err)
	}
	out := map[string][3]string{}
	for _, g := range listed.Sorted() {
		out[g.Group] = [3]string{g.State, g.ProtocolType, g.GroupType}
	}
	return out
}

// PartitionCount is the oracle for a topic's partition count (kadm, internal topics included).
func (k *Kafka) PartitionCount(topic string) int {
	k.t.Helper()
	details, err := k.Admin.ListTopicsWithInternal(ctx(k.t), topic)
	if err == nil {
		err = details[topic].Err
	}
	if err != nil {
		k.t.Fatalf("describe topic %s: %v", topic, err)
	}
	return len(details[topic].Partitions)
}

// GroupNotCaughtUp is the oracle for the caught-up verdict: of every partition of topics (none:
// the topics the group has commits on), those where the group has not caught up, as
// "topic/partition" in order, from kadm's offsets: its commit is not the latest offset, or it has
// none while the log holds records. A share group's progress is kafka-share-groups.sh's: caught
// up where its LAG is 0. nil (not empty) when there is no partition at all: the verdict is then
// false, with one reason that says so.
func (k *Kafka) GroupNotCaughtUp(group string, share bool, topics ...string) []string {
	k.t.Helper()
	var (
		commits map[string]map[int32]int64
		shared  map[string]SharePartition
	)
	if share {
		shared = k.ShareGroupOffsets(group)
	} else {
		commits = k.GroupCommitted(group)
	}
	if len(topics) == 0 {
		for topic := range commits {
			topics = append(topics, topic)
		}
		for name := range shared {
			topics = append(topics, name[:strings.LastIndex(name, "/")])
		}
		slices.Sort(topics)
		topics = slices.Compact(topics)
	}
	if len(topics) == 0 {
		return nil
	}
	out := []string{}
	for _, topic := range topics {
		for p := range int32(k.PartitionCount(topic)) {
			earliest, latest := k.Offsets(topic, p)
			name := fmt.Sprintf("%s/%d", topic, p)
			var has, done bool
			if share {
				sp, ok := shared[name]
				has, done = ok && sp.StartOffset >= 0, ok && sp.StartOffset >= 0 && sp.Lag == 0
			} else {
				c, ok := commits[topic][p]
				has = ok && c >= 0
				done = has && c == latest
			}
			if !done && (has || earliest < latest) {
				out = append(out, name)
			}
		}
	}
	return out
}
