package provider

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// The time-lag attributes on the real broker: fetch_timestamps, next_record_timestamp, time_lag_ms
// and max_time_lag_ms. Every expected record comes from franz-go's consumer started at the group's
// commit (acctest.NextRecord), every offset from kadm; a time lag is checked to lie between the
// read's earliest and latest possible time minus that record's timestamp.

// oracleNone: a consumer that starts at from is given no record (caught up).
func oracleNone(t *testing.T, k *acctest.Kafka, topic string, partition int32, from int64, isolation int8) {
	t.Helper()
	if next := k.NextRecord(topic, partition, from, isolation); next != nil {
		t.Fatalf("oracle: a consumer of %s/%d from %d (isolation %d) is given %+v; the test arranged none", topic, partition,
			from, isolation, next)
	}
}

func timeLagConfig(t *testing.T, group, extra string) string {
	return groupConfig(t, group, "fetch_timestamps = true\n  "+extra)
}

// testTimeLagRead applies a fetch_timestamps read of group, an Empty group committed on one
// partition, and checks it as expectTimeLag does, and with extra.
func testTimeLagRead(t *testing.T, k *acctest.Kafka, group string, e timedEntry, extra ...statecheck.StateCheck) {
	t.Helper()
	var w readWindow
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig:         w.open,
			Config:            timeLagConfig(t, group, ""),
			ConfigStateChecks: append(expectTimeLag(t, k, groupAddr, group, "Empty", &w, []timedEntry{e}), extra...),
		}},
	})
}

// A commit in the middle of a compressed batch, one batch per codec: records stamped T0, T0+10 s,
// T0+20 s in one batch (the broker keeps it whole: acctest.Batches), the group committed at 1. The
// record it reads next is the second, so next_record_timestamp is T0+10 s exactly (not the batch's
// first timestamp), and time_lag_ms, the group's max_time_lag_ms, the read's time minus that.
func TestAccConsumerGroupOffsets_timeLagMidBatch(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	t0 := time.Now().Add(-5 * time.Minute).Truncate(time.Second).Add(250 * time.Millisecond)
	for _, codec := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		t.Run(codec, func(t *testing.T) {
			topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
			group := topic + "-group"
			k.ProduceBatch(topic, 0, codec, t0, t0.Add(10*time.Second), t0.Add(20*time.Second))
			if b := k.Batches(topic, 0, 0); len(b) != 1 || b[0].NumRecords != 3 || b[0].Codec != codec {
				t.Fatalf("the broker keeps %+v; the test needs one %s batch of 3 records", b, codec)
			}
			k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 1}})
			next := oracleNext(t, k, topic, 0, 1, 0, 1, t0.Add(10*time.Second))
			testTimeLagRead(t, k, group, timedEntry{groupEntry{topic, 0, 1, 3}, next},
				// the exact text a user reads: T0 is at 250 ms past a second
				statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("partitions").AtSliceIndex(0).AtMapKey("next_record_timestamp"),
					knownvalue.StringExact(t0.Add(10*time.Second).UTC().Format("2006-01-02T15:04:05")+".250Z")))
		})
	}
}

// A LogAppendTime topic: the broker stamps every record of the batch with its time of append,
// and that is the time the group's next record has, not the producer's (an hour earlier).
func TestAccConsumerGroupOffsets_timeLagLogAppendTime(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateLogAppendTimeTopic(acctest.TopicName(t, ""), 1)
	group := topic + "-group"
	produced := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	k.ProduceBatch(topic, 0, "gzip", produced, produced.Add(10*time.Second), produced.Add(20*time.Second))
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 1}})
	next := oracleNext(t, k, topic, 0, 1, 0, 1, time.Time{})
	if !next.LogAppendTime || next.Timestamp.Before(produced.Add(time.Hour-time.Minute)) {
		t.Fatalf("oracle: the next record is %+v; the test needs the broker's time of append", next)
	}
	testTimeLagRead(t, k, group, timedEntry{groupEntry{topic, 0, 1, 3}, next})
}

// One group on three partitions: caught up (time lag 0, no next record), behind (the record at
// the commit), and, on another topic, without a commit (null, and so max_time_lag_ms null: a
// gate on it cannot pass). Without that topic, max_time_lag_ms is the behind partition's.
// Without fetch_timestamps every time attribute is null.
func TestAccConsumerGroupOffsets_timeLagCaughtUpBehindUncommitted(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 2, nil)
	other := k.CreateTopic(topic+"-other", 1, nil) // sorts after topic
	group := topic + "-group"
	t0 := time.Now().Add(-10 * time.Minute).Truncate(time.Millisecond)
	k.ProduceBatch(topic, 0, "none", t0, t0.Add(time.Second), t0.Add(2*time.Second))
	k.ProduceBatch(topic, 1, "snappy", t0, t0.Add(3*time.Second), t0.Add(6*time.Second))
	k.ProduceBatch(other, 0, "none", t0, t0.Add(time.Second))
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 3, 1: 1}})
	oracleNone(t, k, topic, 0, 3, 0)
	behind := oracleNext(t, k, topic, 1, 1, 0, 1, t0.Add(3*time.Second))
	caughtUp, behindEntry := timedEntry{groupEntry{topic, 0, 3, 3}, nil}, timedEntry{groupEntry{topic, 1, 1, 3}, behind}
	uncommitted := timedEntry{groupEntry: groupEntry{other, 0, -1, 2}}
	both := fmt.Sprintf("topics = [%q, %q]", topic, other)
	var w readWindow
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: w.open,
				Config:    timeLagConfig(t, group, both),
				ConfigStateChecks: expectTimeLag(t, k, groupAddr, group, "Empty", &w,
					[]timedEntry{caughtUp, behindEntry, uncommitted}),
			},
			{
				PreConfig:         w.open,
				Config:            timeLagConfig(t, group, fmt.Sprintf("topics = [%q]", topic)),
				ConfigStateChecks: expectTimeLag(t, k, groupAddr, group, "Empty", &w, []timedEntry{caughtUp, behindEntry}),
			},
			{
				Config: groupConfig(t, group, both),
				ConfigStateChecks: append(expectGroup(t, k, group, "Empty", []groupEntry{{topic, 0, 3, 3}, {topic, 1, 1, 3}, {other, 0, -1, 2}}),
					statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("max_time_lag_ms"), knownvalue.Null())),
			},
		},
	})
}

// Transactions: an aborted transaction at the commit (offsets 2, 3, its marker 4, then a record
// at 5). read_committed skips it, as a consumer does: the next record is 5; read_uncommitted
// reads the aborted record 2 itself. A commit at 7, after a committed transaction's record 6
// and before its marker (the log's last offset), has nothing left to read: time lag 0 under
// both isolation levels, although its lag counts the marker (1).
func TestAccConsumerGroupOffsets_timeLagTransactions(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	atAbort, atMarker := topic+"-at-abort", topic+"-at-marker"
	t0 := time.Now().Add(-10 * time.Minute).Truncate(time.Millisecond)
	k.ProduceAt(topic, 0, t0, t0.Add(time.Second))
	abort, commit := kgo.TryAbort, kgo.TryCommit
	k.Transaction(k.Transactional(topic+"-aborts"), topic, 0, 2, &abort)
	k.WaitForOffset(topic, 0, -1, 1, 5, 10*time.Second) // the marker at 4 is written after EndTransaction returns
	k.ProduceAt(topic, 0, t0.Add(5*time.Second))
	k.Transaction(k.Transactional(topic+"-commits"), topic, 0, 1, &commit)
	k.WaitForOffset(topic, 0, -1, 1, 8, 10*time.Second)
	k.CommitOffsets(atAbort, map[string]map[int32]int64{topic: {0: 2}})
	k.CommitOffsets(atMarker, map[string]map[int32]int64{topic: {0: 7}})
	committed := oracleNext(t, k, topic, 0, 2, 1, 5, t0.Add(5*time.Second))
	aborted := oracleNext(t, k, topic, 0, 2, 0, 2, time.Time{})
	oracleNone(t, k, topic, 0, 7, 1)
	oracleNone(t, k, topic, 0, 7, 0)

	config := acctest.ProviderBlock(t)
	for _, ds := range []struct{ name, group, isolation string }{
		{"committed", atAbort, "read_committed"}, {"uncommitted", atAbort, "read_uncommitted"},
		{"marker_committed", atMarker, "read_committed"}, {"marker_uncommitted", atMarker, "read_uncommitted"},
	} {
		config += fmt.Sprintf(`
data "kafka_consumer_group_offsets" %q {
  group_id         = %q
  isolation_level  = %q
  fetch_timestamps = true
}
`, ds.name, ds.group, ds.isolation)
	}
	addr := func(name string) string { return "data.kafka_consumer_group_offsets." + name }
	var w readWindow
	checks := slices.Concat(
		expectTimeLag(t, k, addr("committed"), atAbort, "Empty", &w, []timedEntry{{groupEntry{topic, 0, 2, 8}, committed}}),
		expectTimeLag(t, k, addr("uncommitted"), atAbort, "Empty", &w, []timedEntry{{groupEntry{topic, 0, 2, 8}, aborted}}),
		expectTimeLag(t, k, addr("marker_committed"), atMarker, "Empty", &w, []timedEntry{{groupEntry{topic, 0, 7, 8}, nil}}),
		expectTimeLag(t, k, addr("marker_uncommitted"), atMarker, "Empty", &w, []timedEntry{{groupEntry{topic, 0, 7, 8}, nil}}),
	)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps:                    []resource.TestStep{{PreConfig: w.open, Config: config, ConfigStateChecks: checks}},
	})
}

// DeleteRecords past the commit: a consumer of the group is answered OFFSET_OUT_OF_RANGE and
// resumes where its auto.offset.reset points (the new log start, or the log end: the cluster does
// not say), so the age of what it reads next is unknown: time_lag_ms and max_time_lag_ms are null,
// never the age of the log start's record, which would let a time gate pass for a consumer that
// skips the whole log.
func TestAccConsumerGroupOffsets_timeLagAfterDeleteRecords(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	group := topic + "-group"
	t0 := time.Now().Add(-10 * time.Minute).Truncate(time.Millisecond)
	k.ProduceBatch(topic, 0, "zstd", t0, t0.Add(time.Second), t0.Add(2*time.Second), t0.Add(3*time.Second), t0.Add(4*time.Second))
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 1}})
	k.DeleteRecordsBefore(topic, 0, 3)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: timeLagConfig(t, group, ""),
			ConfigStateChecks: []statecheck.StateCheck{
				oracleAgrees{t: t, k: k, topic: topic, partition: 0, earliest: 3, latest: 5},
				groupOracleAgrees{t: t, k: k, group: group, entries: []groupEntry{{topic, 0, 1, 5}}},
				statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("partitions"), knownvalue.ListExact([]knownvalue.Check{
					groupEntry{topic, 0, 1, 5}.checkTime(knownvalue.Null(), knownvalue.Null(), knownvalue.Bool(false)),
				})),
				statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("max_time_lag_ms"), knownvalue.Null()),
				statecheck.ExpectKnownValue(groupAddr, tfjsonpath.New("caught_up"), knownvalue.Bool(false)),
			},
		}},
	})
}

// A principal that may DESCRIBE the group and the topic but not READ the topic: the Fetch of
// fetch_timestamps is refused, and the error says so on fetch_timestamps, naming the topic and
// READ, never a silent null; the same read without fetch_timestamps succeeds.
func TestAccConsumerGroupOffsets_timeLagWithoutRead(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	auth := acctest.Auth(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	group := topic + "-group"
	k.Produce(topic, 0, 5)
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 2}})
	user, password := k.LimitedUser([]string{group}, []string{topic}) // DESCRIBE only
	config := limitedGroupConfig(auth, user, password, group)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("fetch_timestamps = true"),
				ExpectError: errorLike("Not authorized to read records", "TOPIC_AUTHORIZATION_FAILED",
					fmt.Sprintf("needs the ACL operation READ on topic %q", topic), "set fetch_timestamps = false"),
			},
			{
				Config:            config(fmt.Sprintf("topics = [%q]", topic)),
				ConfigStateChecks: expectGroup(t, k, group, "Empty", []groupEntry{{topic, 0, 2, 5}}),
			},
		},
	})
}

// A compacted topic: the records at and after the commit were superseded by later ones of the
// same keys and the log cleaner removed them; the oldest record the group has not read is the
// first that still exists (offset 2), not the offset it committed. The broker's cleaner runs on
// its own schedule (log.cleaner.backoff.ms, 15 s): the test waits for franz-go's consumer to be
// given offset 2 first.
func TestAccConsumerGroupOffsets_timeLagCompacted(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	compact := func(v string) *string { return &v }
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, map[string]*string{
		"cleanup.policy": compact("compact"), "segment.ms": compact("100"),
		"min.cleanable.dirty.ratio": compact("0.001"), "min.compaction.lag.ms": compact("0"),
	})
	group := topic + "-group"
	t0 := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	for i, key := range []string{"a", "b", "a", "b", "c"} { // offsets 0 and 1 are superseded by 2 and 3
		r := &kgo.Record{Topic: topic, Key: []byte(key), Value: []byte(key), Timestamp: t0.Add(time.Duration(i) * time.Second)}
		if err := k.Kgo.ProduceSync(t.Context(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 0}})
	deadline := time.Now().Add(2 * time.Minute)
	for {
		// a later record rolls the segment (segment.ms), so the cleaner may compact the one before
		time.Sleep(200 * time.Millisecond)
		r := &kgo.Record{Topic: topic, Key: []byte("roll"), Value: []byte("roll"), Timestamp: time.Now()}
		if err := k.Kgo.ProduceSync(t.Context(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if next := k.NextRecord(topic, 0, 0, 0); next != nil && next.Offset == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the broker's log cleaner did not compact offsets 0 and 1 within 2 minutes")
		}
		time.Sleep(3 * time.Second)
	}
	_, latest := k.Offsets(topic, 0)
	next := oracleNext(t, k, topic, 0, 0, 0, 2, t0.Add(2*time.Second))
	testTimeLagRead(t, k, group, timedEntry{groupEntry{topic, 0, 0, latest}, next})
}

// kafka_consumer_groups with fetch_timestamps: each group's max_time_lag_ms over the partitions of
// the topics it reads. Four groups on two topics: behind on both (its largest time lag is the older
// topic's next record, T0+10 s inside a batch), caught up (0), one that shares a partition with the
// first at another offset, and one whose commit lies past the log end (null: its age is unknown, so
// a gate on it cannot pass). The next records are the oracle's (franz-go's consumer at each
// commit); without fetch_timestamps every value is null.
func TestAccConsumerGroups_timeLag(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	prefix := acctest.TopicName(t, "")
	a, b := k.CreateTopic(prefix+"-a", 1, nil), k.CreateTopic(prefix+"-b", 2, nil) // a sorts first
	behind, caughtUp, other, pastEnd := prefix+"-behind", prefix+"-caught-up", prefix+"-other", prefix+"-past-end"
	t0 := time.Now().Add(-20 * time.Minute).Truncate(time.Millisecond)
	k.ProduceBatch(a, 0, "gzip", t0, t0.Add(10*time.Second), t0.Add(20*time.Second))
	k.ProduceBatch(b, 0, "zstd", t0.Add(5*time.Minute), t0.Add(6*time.Minute))
	k.ProduceBatch(b, 1, "none", t0.Add(7*time.Minute))
	k.CommitOffsets(behind, map[string]map[int32]int64{a: {0: 1}, b: {0: 1, 1: 1}}) // b/1 caught up
	k.CommitOffsets(caughtUp, map[string]map[int32]int64{a: {0: 3}, b: {0: 2, 1: 1}})
	k.CommitOffsets(other, map[string]map[int32]int64{a: {0: 2}})
	k.CommitOffsets(pastEnd, map[string]map[int32]int64{a: {0: 2}, b: {0: 9}})
	behindNext := oracleNext(t, k, a, 0, 1, 0, 1, t0.Add(10*time.Second))
	oracleNext(t, k, b, 0, 1, 0, 1, t0.Add(6*time.Minute)) // younger: not the group's largest
	oracleNone(t, k, b, 1, 1, 0)
	oracleNone(t, k, a, 0, 3, 0)
	oracleNone(t, k, b, 0, 2, 0)
	otherNext := oracleNext(t, k, a, 0, 2, 0, 2, t0.Add(20*time.Second))

	entries := []struct {
		groupsEntry
		maxTimeLag knownvalue.Check
	}{
		{groupsEntry{behind, "Empty", "", []string{a, b}, 3, "classic"}, nil},
		{groupsEntry{caughtUp, "Empty", "", []string{a, b}, 0, "classic"}, knownvalue.Int64Exact(0)},
		{groupsEntry{other, "Empty", "", []string{a}, 1, "classic"}, nil},
		{groupsEntry{pastEnd, "Empty", "", []string{a, b}, 1, "classic"}, knownvalue.Null()},
	}
	var w readWindow
	entries[0].maxTimeLag, entries[2].maxTimeLag = lagSince{&w, behindNext}, lagSince{&w, otherNext}
	var timed, plain []knownvalue.Check
	var want []groupsEntry
	for _, e := range entries {
		committed := knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("committed")}) // admin commits: no member
		timed, plain = append(timed, e.check(k, e.maxTimeLag, committed)), append(plain, e.check(k, knownvalue.Null(), committed))
		want = append(want, e.groupsEntry)
	}
	args := fmt.Sprintf("group_id_regex = %q\n", regexp.QuoteMeta(prefix)+"-.*")
	const addr = "data.kafka_consumer_groups.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: w.open,
				Config:    consumerGroupsConfig(t, args+"fetch_timestamps = true"),
				ConfigStateChecks: []statecheck.StateCheck{
					groupsOracleAgrees{k: k, entries: want},
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("groups"), knownvalue.ListExact(timed)),
				},
			},
			{
				Config:            consumerGroupsConfig(t, args),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, tfjsonpath.New("groups"), knownvalue.ListExact(plain))},
			},
		},
	})
}

// A share group's time lag where records wait is the age of the record at its start offset, which
// Kafka may keep behind records already acknowledged: the read says it is an upper bound, naming
// the partition. A consumer group's time lag is the age of its next record: no such warning.
func TestShareGroupTimeLagIsAnUpperBound(t *testing.T) {
	next := &kafkaclient.NextRecord{Offset: 4, TimestampMs: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).UnixMilli()}
	p := kafkaclient.GroupPartitionOffsets{Topic: "t", Partition: 0, TimeLag: kafkaclient.TimeLag{Next: next}}
	for kind, want := range map[string]bool{kafkaclient.ShareGroup: true, kafkaclient.ConsumerGroup: false, kafkaclient.ClassicGroup: false} {
		var diags diag.Diagnostics
		addTimeLagWarnings(&diags, "g", kind, []kafkaclient.GroupPartitionOffsets{p})
		found := false
		for _, d := range diags.Warnings() {
			found = found || (d.Summary() == "Share group time lag is an upper bound" &&
				strings.Contains(d.Detail(), "t/0 (offset 4, timestamp 2026-11-01T12:00:00.000Z"))
		}
		if found != want {
			t.Errorf("%s group: the upper-bound warning %v, want %v (%v)", kind, found, want, diags)
		}
	}
}
