package kafkaharness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A node without Options.Tiered gets no tiered storage lines; a tiered one
// points the broker at the compiled class and keeps the remote tier in its
// work dir.
func TestTieredPropertiesOnlyForTieredNode(t *testing.T) {
	t.Parallel()
	if got := tieredProperties("/w", ""); got != "" {
		t.Errorf("without classes: %q, want no lines", got)
	}
	got := tieredProperties("/w", "/cache/kafka-4.4.0/rsm-0123456789ab")
	for _, want := range []string{
		"remote.log.storage.system.enable=true\n",
		"remote.log.storage.manager.class.name=tfacc.FileRemoteStorage\n",
		"remote.log.storage.manager.class.path=/cache/kafka-4.4.0/rsm-0123456789ab\n",
		"rsm.config.dir=/w/remote\n",
		"remote.log.manager.task.interval.ms=1000\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("tiered properties lack %q:\n%s", want, got)
		}
	}
}

// A tiered node compiles FileRemoteStorage into the cache and, for a topic
// with remote.storage.enable=true and local.retention.bytes=1, copies each
// closed segment to its remote dir and deletes it locally: three records two
// minutes apart (segment.ms one minute) make segments [0], [1] and the active
// [2], so the broker answers earliest 0, earliest local 2 (-4) and latest
// tiered 1 (-5), and the remote dir holds two segments.
func TestTieredNodeCopiesClosedSegmentsToRemoteDir(t *testing.T) {
	t.Parallel()
	o := scratchCache(t, tieredOptions(t))
	o.Tiered = true
	s := startWith(t, o)
	classes, _ := filepath.Glob(filepath.Join(o.Cache, "kafka-"+o.Version, "rsm-*", "tfacc", "FileRemoteStorage.class"))
	if len(classes) != 1 {
		t.Fatalf("compiled classes in the cache: %v, want one FileRemoteStorage.class", classes)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	const topic = "tiered-topic"
	configs := map[string]*string{}
	for k, v := range map[string]string{"remote.storage.enable": "true", "local.retention.bytes": "1", "segment.ms": "60000"} {
		configs[k] = &v
	}
	if _, err := admin(t, s.Bootstrap()).CreateTopic(ctx, 1, 1, configs, topic); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.Bootstrap()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	base := time.Now().Add(-time.Hour)
	for i := range 3 {
		r := &kgo.Record{Topic: topic, Value: []byte{byte(i)}, Timestamp: base.Add(time.Duration(i) * 2 * time.Minute)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}

	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		local, tiered := listOffset(ctx, t, cl, topic, -4), listOffset(ctx, t, cl, topic, -5)
		if local == 2 && tiered == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/0 not tiered after 2 minutes: earliest local %d, latest tiered %d, want 2 and 1", topic, local, tiered)
		}
	}
	if got := listOffset(ctx, t, cl, topic, -2); got != 0 {
		t.Errorf("earliest offset %d, want 0 (the first two records are in remote storage)", got)
	}
	segments, _ := filepath.Glob(filepath.Join(RemoteDir(s.Node(1).Dir), "*", "segment"))
	if len(segments) != 2 {
		t.Errorf("segments in %s: %v, want two", RemoteDir(s.Node(1).Dir), segments)
	}
	for _, seg := range segments {
		if fi, err := os.Stat(seg); err != nil || fi.Size() == 0 {
			t.Errorf("remote segment %s: %v, want a record batch in it", seg, err)
		}
	}
}

// listOffset asks the broker for partition 0 of topic at a special timestamp
// (ListOffsets, franz-go).
func listOffset(ctx context.Context, t *testing.T, cl *kgo.Client, topic string, timestamp int64) int64 {
	t.Helper()
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.CurrentLeaderEpoch = -1
	rp.Timestamp = timestamp
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("ListOffsets %s/0 at %d: %v", topic, timestamp, err)
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		t.Fatalf("ListOffsets %s/0 at %d: answer %+v", topic, timestamp, resp.Topics)
	}
	p := resp.Topics[0].Partitions[0]
	if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
		t.Fatalf("ListOffsets %s/0 at %d: %v", topic, timestamp, err)
	}
	return p.Offset
}

// A tiered node stopped as soon as Start returns stops by itself
// (SIGTERM), rather than hanging in its metadata manager's close until it is
// killed: Start returns only once the manager's topic is there.
func TestTieredNodeStopsRightAfterStart(t *testing.T) {
	t.Parallel()
	o := tieredOptions(t)
	o.Tiered = true
	s := startWith(t, o)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
}

// tieredOptions are accOptions for a tiered node; the test skips before Kafka
// 3.6, where Start refuses tiered storage.
func tieredOptions(t *testing.T) Options {
	t.Helper()
	o := accOptions(t)
	if v := o.withDefaults().Version; !atLeast(v, 3, 6) {
		t.Skipf("tiered storage needs Kafka 3.6 or later; this leg runs %s", v)
	}
	return o
}
