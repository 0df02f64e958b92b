package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// committedAt is a partition with a commit, by kafkaclient's lag rule (latest − committed).
func committedAt(topic string, partition int, committed, latest int64) kafkaclient.GroupPartitionOffsets {
	return kafkaclient.GroupPartition(topic, kafkaclient.PartitionOffsets{Partition: partition, Latest: latest,
		HighWatermark: latest}, &committed, false)
}

func uncommitted(topic string, partition int, latest int64) kafkaclient.GroupPartitionOffsets {
	return kafkaclient.GroupPartition(topic, kafkaclient.PartitionOffsets{Partition: partition, Latest: latest,
		HighWatermark: latest}, nil, false)
}

// reads answers the wait's reads in turn, repeating the last answer.
func reads(answers ...kafkaclient.GroupOffsets) (func(context.Context) (kafkaclient.GroupOffsets, error), *int) {
	n := 0
	return func(context.Context) (kafkaclient.GroupOffsets, error) {
		a := answers[min(n, len(answers)-1)]
		n++
		return a, nil
	}, &n
}

// group is a read of partitions with timestamps, judged as the reads judge theirs.
func group(ps ...kafkaclient.GroupPartitionOffsets) kafkaclient.GroupOffsets {
	v, err := kafkaclient.Judge("g", ps, "", true)
	if err != nil {
		panic(err)
	}
	return kafkaclient.GroupOffsets{State: "Stable", Partitions: ps, Verdict: v}
}

// The wait reads until total_lag <= max_total_lag and every partition has a commit with a lag of
// 0 or more; a commit past the log end (negative lag) is not progress, and does not cancel
// another partition's backlog.
func TestWaitForGroupReadsUntilCaughtUp(t *testing.T) {
	read, n := reads(
		group(uncommitted("t", 0, 5), committedAt("t", 1, 0, 3)),    // partition 0 without a commit
		group(committedAt("t", 0, 1, 5), committedAt("t", 1, 9, 3)), // lag 4 and -6: total 4
		group(committedAt("t", 0, 4, 5), committedAt("t", 1, 3, 3)), // total 1 > 0
		group(committedAt("t", 0, 5, 5), committedAt("t", 1, 3, 3)), // caught up
		group(committedAt("t", 0, 5, 9), committedAt("t", 1, 3, 3)), // never read
	)
	s := waitSettings{maxTotalLag: new(int64), timeout: time.Minute, pollInterval: time.Millisecond}
	res, err := waitForGroup(context.Background(), "g", s, read)
	if err != nil {
		t.Fatal(err)
	}
	if *n != 4 || *res.Partitions[0].Committed != 5 || *res.Partitions[1].Committed != 3 {
		t.Fatalf("stopped after %d reads with %+v; want the 4th read", *n, res.Partitions[0])
	}

	read, n = reads(group(committedAt("t", 0, 1, 5), committedAt("t", 1, 3, 3)))
	s.maxTotalLag = ptrTo[int64](4)
	if _, err := waitForGroup(context.Background(), "g", s, read); err != nil || *n != 1 {
		t.Fatalf("max_total_lag 4 with total_lag 4: got %v after %d reads, want done after 1", err, *n)
	}
}

// Under read_committed, max_total_lag weighs total_lag, which counts to the high watermark as
// kafka-consumer-groups.sh does: offsets 0-4 plain records, 5-6 an open transaction, 7-9 plain
// records (last stable offset 5, high watermark 10). A group committed at 3 is 7 behind (lag 2,
// and 5 held), one committed at 5 is 5 behind: the one further behind is never done before the
// nearer one, and neither is done within 4.
func TestWaitWeighsRecordsHeldBehindATransaction(t *testing.T) {
	at := func(committed int64) kafkaclient.GroupOffsets {
		return group(kafkaclient.GroupPartition("t", kafkaclient.PartitionOffsets{Latest: 5, HighWatermark: 10}, &committed, false))
	}
	gD, gA := progressOf(at(3)), progressOf(at(5))
	if gD.totalLag != 7 || gA.totalLag != 5 {
		t.Fatalf("total_lag %d and %d, want 7 and 5", gD.totalLag, gA.totalLag)
	}
	for _, tc := range []struct {
		maxTotalLag  int64
		doneD, doneA bool
	}{{0, false, false}, {4, false, false}, {5, false, true}, {7, true, true}} {
		s := waitSettings{maxTotalLag: &tc.maxTotalLag}
		if gD.done(s) != tc.doneD || gA.done(s) != tc.doneA {
			t.Errorf("max_total_lag %d: done %v (committed 3) and %v (committed 5), want %v and %v",
				tc.maxTotalLag, gD.done(s), gA.done(s), tc.doneD, tc.doneA)
		}
	}
}

// When the time runs out, the error gives the last figures and the verdict's reasons: the
// partitions still behind, without a commit, and past the log end, as not_caught_up names them.
func TestWaitForGroupTimesOutWithLastFigures(t *testing.T) {
	read, _ := reads(group(committedAt("orders", 0, 1, 5), uncommitted("orders", 1, 3), committedAt("orders", 2, 7, 7),
		committedAt("orders", 3, 12, 10)))
	s := waitSettings{maxTotalLag: ptrTo[int64](2), timeout: 50 * time.Millisecond, pollInterval: 10 * time.Millisecond}
	_, err := waitForGroup(context.Background(), "g", s, read)
	var behind *groupBehindError
	if !errors.As(err, &behind) {
		t.Fatalf("got %v, want a groupBehindError", err)
	}
	for _, want := range []string{
		`consumer group "g" did not catch up within the wait timeout of 50ms`,
		"last read: total_lag null (max_total_lag 2); not caught up: ", // records without a commit: no sum
		"orders/0: lag 4 (committed_offset 1, latest_offset 5)",
		"orders/3: committed offset 12 is past the log end 10",
		"orders/1: no commit, and offsets 0 to 2 wait",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%s", want, err)
		}
	}
}

// A group that does not exist yet is waited for; another read error ends the wait at once.
func TestWaitForGroupErrors(t *testing.T) {
	s := waitSettings{timeout: time.Minute, pollInterval: time.Millisecond}
	calls := 0
	res, err := waitForGroup(context.Background(), "g", s, func(context.Context) (kafkaclient.GroupOffsets, error) {
		calls++
		if calls < 3 {
			return kafkaclient.GroupOffsets{}, &kafkaclient.GroupNotFoundError{GroupID: "g", State: "Dead"}
		}
		return group(committedAt("t", 0, 2, 2)), nil
	})
	if err != nil || calls != 3 || len(res.Partitions) != 1 {
		t.Fatalf("got %v after %d reads, want the group once it appears", err, calls)
	}

	unreachable := &kafkaclient.UnreachableError{Addresses: []string{"x:9092"}}
	calls = 0
	_, err = waitForGroup(context.Background(), "g", s, func(context.Context) (kafkaclient.GroupOffsets, error) {
		calls++
		return kafkaclient.GroupOffsets{}, unreachable
	})
	if !errors.Is(err, unreachable) || calls != 1 {
		t.Fatalf("got %v after %d reads, want the read error at once", err, calls)
	}
}

// A group that never appears (a misspelt id) fails the wait at its timeout, naming the ids near it
// that the coordinator listed.
func TestWaitForMissingGroupSuggests(t *testing.T) {
	s := waitSettings{timeout: 20 * time.Millisecond, pollInterval: time.Millisecond}
	_, err := waitForGroup(context.Background(), "biling", s, func(context.Context) (kafkaclient.GroupOffsets, error) {
		return kafkaclient.GroupOffsets{}, &kafkaclient.GroupNotFoundError{GroupID: "biling", State: "Dead", Suggestions: []string{"billing"}}
	})
	var behind *groupBehindError
	if !errors.As(err, &behind) || !strings.Contains(err.Error(), `the last read failed: consumer group "biling" does not exist`) ||
		!strings.HasSuffix(err.Error(), `Did you mean "billing"?`) {
		t.Fatalf("got %v, want the wait's timeout naming the near id", err)
	}
}

func waitConfig(t *testing.T, group, topic, wait string) string {
	return groupConfig(t, group, fmt.Sprintf("topics = [%q]\n  wait {\n    enabled = true\n    %s\n  }", topic, wait))
}

// A consumer catches up while the data source waits: the read ends with total_lag 0 and the
// consumer's commits (kadm agrees). The consumer starts a moment after the step does and stays
// in the group until the test ends; the wait polls every second for up to a minute.
func TestAccConsumerGroupOffsets_waitSucceeds(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 2, nil)
	group := topic + "-group"
	k.Produce(topic, 0, 5)
	k.Produce(topic, 1, 3)
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 1, 1: 0}}) // lag 4 + 3
	seeds := acctest.BootstrapServers(t)
	consumer := make(chan *kgo.Client, 1)
	failed := make(chan error, 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig: func() {
				go func() {
					cl, err := catchUp(seeds, group, topic, 7, 3*time.Second)
					consumer <- cl
					failed <- err
				}()
			},
			Config: waitConfig(t, group, topic, `timeout = "60s"
    poll_interval = "1s"`),
			ConfigStateChecks: expectGroup(t, k, group, "Stable", []groupEntry{{topic, 0, 5, 5}, {topic, 1, 3, 3}}),
		}},
	})
	if cl := <-consumer; cl != nil {
		cl.Close()
	}
	if err := <-failed; err != nil {
		t.Fatal(err)
	}
}

// catchUp waits, then joins group, consumes n records from its commits and commits them. The
// caller closes the client (the member leaves).
func catchUp(seeds []string, group, topic string, n int, after time.Duration) (*kgo.Client, error) {
	time.Sleep(after)
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.DisableAutoCommit())
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for seen := 0; seen < n; {
		fetches := cl.PollFetches(ctx)
		if err := fetches.Err0(); err != nil {
			return cl, fmt.Errorf("consume: %w", err)
		}
		seen += fetches.NumRecords()
	}
	return cl, cl.CommitUncommittedOffsets(ctx)
}

// A group that does not catch up: the read fails when the wait's timeout runs out, naming the
// partitions still behind with the last figures.
func TestAccConsumerGroupOffsets_waitTimesOut(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 2, nil)
	group := topic + "-group"
	k.Produce(topic, 0, 5)
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 1}})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: waitConfig(t, group, topic, `max_total_lag = 1
    timeout = "3s"
    poll_interval = "1s"`),
			ExpectError: errorLike("Consumer group has not caught up",
				fmt.Sprintf("consumer group %q did not catch up within the wait timeout of 3s", group),
				"total_lag 4 (max_total_lag 1)",
				fmt.Sprintf("not caught up: %s/0: lag 4 (committed_offset 1, latest_offset 5). Raise", topic)),
		}},
	})
}

// The wait ends when caught_up says so: group gw has committed partition 0 to its end
// and has no commit on partition 1, which has never held a record (franz-go's and librdkafka's
// consumers commit only the partitions they read). The verdict is caught up, and so the wait
// returns at its first read, with the same verdict.
func TestAccConsumerGroupOffsets_waitAgreesWithCaughtUp(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 2, nil)
	group := topic + "-gw"
	k.Produce(topic, 0, 5)
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 5}})
	if behind := k.GroupNotCaughtUp(group, false, topic); behind == nil || len(behind) != 0 {
		t.Fatalf("oracle: %s is behind on %q, want caught up", group, behind)
	}
	const addr = "data.kafka_consumer_group_offsets.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: waitConfig(t, group, topic, `timeout = "5s"
    poll_interval = "1s"`),
			ConfigStateChecks: append(verdictOracle{k, group, false, []string{topic}}.stateChecks(addr),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("total_lag"), knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("partitions").AtSliceIndex(1).AtMapKey("committed_offset"), knownvalue.Null()),
			),
		}},
	})
}

// A wait block left in a configuration does not hold the plans after it: with enabled =
// false the data source reads once while planning and the group's lag shows at once; were it
// waiting, the 20 s timeout would fail the step. With enabled = true, the same plan waits and fails
// when the timeout runs out, naming the partition behind.
func TestAccConsumerGroupOffsets_waitOnlyWhenEnabled(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	group := topic + "-g"
	k.Produce(topic, 0, 5)
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 2}})
	if lag := k.GroupLag(group); lag != 3 {
		t.Fatalf("oracle (kadm) says group %s lags %d; the test needs 3", group, lag)
	}
	config := func(enabled bool, timeout string) string {
		return groupConfig(t, group, fmt.Sprintf("topics = [%q]\n  wait {\n    enabled = %v\n    timeout = %q\n    poll_interval = \"1s\"\n  }",
			topic, enabled, timeout))
	}
	const addr = "data.kafka_consumer_group_offsets.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(false, "20s"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("caught_up"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("total_lag"), knownvalue.Int64Exact(3)),
				},
			},
			{
				Config:      config(true, "2s"),
				PlanOnly:    true,
				ExpectError: errorLike("Consumer group has not caught up", topic+"/0: lag 3"),
			},
		},
	})
}

// A wait block needs enabled and a timeout, and bounds it; checked while planning, without a broker.
func TestWaitBlockValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		wait string // the wait block's body
		want string // a pattern of the error; a space matches any white space
	}{
		{name: "no timeout", wait: "enabled = true\n    poll_interval = \"1s\"", want: `Incomplete wait block.*wait.timeout is required: how long to wait in all`},
		{name: "no enabled", wait: `timeout = "1m"`, want: `Incomplete wait block.*wait.enabled is required: whether this read waits. A provider cannot tell a plan's read from an apply's.*var.wait_for_drain`},
		{name: "timeout above 24h", wait: "enabled = true\n    timeout = \"25h\"", want: `Invalid duration.*"25h" is outside the allowed range: must be a Go duration from 1s to 24h0m0s`},
		{name: "timeout without a unit", wait: "enabled = true\n    timeout = \"10\"", want: `Invalid duration.*` + regexp.QuoteMeta(durationDetail10) + `\s*$`},
		{name: "negative max_total_lag", wait: "enabled = true\n    timeout = \"1m\"\n    max_total_lag = -1", want: `max_total_lag.*must be at least 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: `provider "kafka" {
  bootstrap_servers = ["127.0.0.1:1"]
}
data "kafka_consumer_group_offsets" "test" {
  group_id = "g"
  wait {
    ` + tc.wait + `
  }
}`,
					ExpectError: regexp.MustCompile(`(?s)` + strings.ReplaceAll(tc.want, " ", `\s+`)),
				}},
			})
		})
	}
}

// timed is a committed partition with a time lag, as kafkaclient's time-lag rule sets it.
func timed(gp kafkaclient.GroupPartitionOffsets, lagMs int64) kafkaclient.GroupPartitionOffsets {
	gp.LagMs = &lagMs
	return gp
}

// max_time_lag alone waits for the time lag only: a live topic's offset lag never reaches 0. Set
// with max_total_lag, both must hold; a partition whose time lag is unknown is never done.
func TestWaitForGroupTimeLag(t *testing.T) {
	minute := time.Minute
	for _, tc := range []struct {
		name      string
		maxTotal  *int64
		answers   []kafkaclient.GroupOffsets
		wantReads int
	}{
		{
			name: "max_time_lag alone ignores the offset lag",
			answers: []kafkaclient.GroupOffsets{
				group(timed(committedAt("t", 0, 10, 500), 90_000), timed(committedAt("t", 1, 7, 7), 0)),
				group(timed(committedAt("t", 0, 400, 900), 59_999), timed(committedAt("t", 1, 7, 7), 0)),
			},
			wantReads: 2,
		},
		{
			name:     "with max_total_lag both must hold",
			maxTotal: ptrTo[int64](100),
			answers: []kafkaclient.GroupOffsets{
				group(timed(committedAt("t", 0, 400, 900), 1_000)),  // in time, 500 behind
				group(timed(committedAt("t", 0, 850, 900), 61_000)), // 50 behind, too old
				group(timed(committedAt("t", 0, 880, 900), 60_000)), // both hold
			},
			wantReads: 3,
		},
		{
			name: "an unknown time lag is never done",
			answers: []kafkaclient.GroupOffsets{
				group(committedAt("t", 0, 5, 9), timed(committedAt("t", 1, 7, 7), 0)), // partition 0: no timestamp
				group(timed(committedAt("t", 0, 5, 9), 10), timed(committedAt("t", 1, 7, 7), 0)),
			},
			wantReads: 2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read, n := reads(tc.answers...)
			s := waitSettings{maxTotalLag: tc.maxTotal, maxTimeLag: &minute, timeout: time.Minute, pollInterval: time.Millisecond}
			if _, err := waitForGroup(context.Background(), "g", s, read); err != nil || *n != tc.wantReads {
				t.Fatalf("got %v after %d reads, want done after %d", err, *n, tc.wantReads)
			}
		})
	}
}

// The settings of a wait block: max_total_lag defaults to 0 only when max_time_lag is unset.
func TestWaitSettingsLagConditions(t *testing.T) {
	for _, tc := range []struct {
		name         string
		maxTotalLag  types.Int64
		maxTimeLag   goDurationValue
		wantTotal    *int64
		wantTimeLag  *time.Duration
		wantTimeRead bool
	}{
		{name: "neither", maxTotalLag: types.Int64Null(), maxTimeLag: goDurationValue{timetypes.NewGoDurationNull()}, wantTotal: ptrTo[int64](0)},
		{name: "max_total_lag", maxTotalLag: types.Int64Value(7), maxTimeLag: goDurationValue{timetypes.NewGoDurationNull()}, wantTotal: ptrTo[int64](7)},
		{name: "max_time_lag", maxTotalLag: types.Int64Null(), maxTimeLag: goDurationValue{timetypes.NewGoDurationValue(time.Minute)},
			wantTimeLag: ptrTo(time.Minute), wantTimeRead: true},
		{name: "both", maxTotalLag: types.Int64Value(3), maxTimeLag: goDurationValue{timetypes.NewGoDurationValue(time.Second)},
			wantTotal: ptrTo[int64](3), wantTimeLag: ptrTo(time.Second), wantTimeRead: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &groupWaitModel{Enabled: types.BoolValue(true), MaxTotalLag: tc.maxTotalLag, MaxTimeLag: tc.maxTimeLag,
				Timeout: goDurationValue{timetypes.NewGoDurationValue(time.Minute)}, PollInterval: goDurationValue{timetypes.NewGoDurationNull()},
				StallTimeout: goDurationValue{timetypes.NewGoDurationNull()}}
			var diags diag.Diagnostics
			s := w.settings(&diags)
			if diags.HasError() {
				t.Fatal(diags)
			}
			if diff := cmp.Diff(tc.wantTotal, s.maxTotalLag); diff != "" {
				t.Errorf("maxTotalLag (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantTimeLag, s.maxTimeLag); diff != "" {
				t.Errorf("maxTimeLag (-want +got):\n%s", diff)
			}
			if got := w.waitsForTime(); got != tc.wantTimeRead {
				t.Errorf("waitsForTime() = %v, want %v", got, tc.wantTimeRead)
			}
			if w.Enabled = types.BoolValue(false); w.enabled() || w.waitsForTime() {
				t.Errorf("with enabled = false: enabled() = %v, waitsForTime() = %v; want neither", w.enabled(), w.waitsForTime())
			}
		})
	}
}

// A group whose commits stop moving while it is behind fails at stall_timeout, long before the
// wait's timeout, naming its state and the partitions behind; a group that keeps committing does not.
func TestWaitForGroupStalls(t *testing.T) {
	s := waitSettings{maxTotalLag: new(int64), stallTimeout: 30 * time.Millisecond, timeout: time.Minute, pollInterval: 5 * time.Millisecond}
	read, n := reads(group(committedAt("orders", 0, 3, 10), committedAt("orders", 1, 8, 8)))
	_, err := waitForGroup(context.Background(), "g", s, read)
	var stalled *groupStalledError
	if !errors.As(err, &stalled) {
		t.Fatalf("got %v after %d reads, want a groupStalledError", err, *n)
	}
	for _, want := range []string{
		`consumer group "g" (state "Stable") has stalled: the committed offset of 1 partition(s) not caught up ` +
			`did not move for stall_timeout 30ms: orders/0 (committed 3, latest 10, lag 7)`,
		"; not caught up: orders/0: lag 7 (committed_offset 3, latest_offset 10)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%s", want, err)
		}
	}

	committed := int64(0)
	moving := func(context.Context) (kafkaclient.GroupOffsets, error) {
		committed++ // one more record read at every poll, for 20 polls (100 ms, over three stall timeouts)
		return group(committedAt("orders", 0, min(committed, 20), 20)), nil
	}
	if _, err := waitForGroup(context.Background(), "g", s, moving); err != nil || committed != 20 {
		t.Fatalf("a group that keeps committing: got %v after %d reads, want done after 20", err, committed)
	}

	// One partition stuck behind (a poison record) while the other keeps committing: the stuck one
	// stalls the wait, the moving one is not named as stalled.
	committed = 0
	oneStuck := func(context.Context) (kafkaclient.GroupOffsets, error) {
		committed++
		return group(committedAt("orders", 0, 3, 10), committedAt("orders", 1, committed, 1_000_000)), nil
	}
	_, err = waitForGroup(context.Background(), "g", s, oneStuck)
	if !errors.As(err, &stalled) || len(stalled.stalled) != 1 || stalled.stalled[0].Partition != 0 {
		t.Fatalf("one partition stuck: got %v, want a stall of orders/0 alone", err)
	}

	// A group without a commit, read by a member: total_lag is null, and the error says so.
	owned := uncommitted("orders", 0, 10)
	owned.Assigned = true
	read, _ = reads(group(owned))
	_, err = waitForGroup(context.Background(), "g", s, read)
	if !errors.As(err, &stalled) || !strings.Contains(err.Error(), "orders/0 (no commit, latest 10)") ||
		!strings.Contains(err.Error(), "total_lag null (max_total_lag 0); not caught up: orders/0: no commit while a member reads it") {
		t.Fatalf("a member without a commit: got %v", err)
	}
}

// The rate of progress and the time left come from two reads in a row.
func TestProgressTrackerRate(t *testing.T) {
	start := time.Unix(1_000, 0)
	tr := newProgressTracker(start)
	if r := tr.observe(start, progressOf(group(committedAt("t", 0, 100, 1100)))); r.known {
		t.Fatalf("the first read has no rate: %+v", r)
	}
	r := tr.observe(start.Add(2*time.Second), progressOf(group(committedAt("t", 0, 500, 1300))))
	want := progressRate{known: true, commitsPerSecond: 200, timeLeft: 8 * time.Second} // lag 1000 -> 800 in 2 s
	if diff := cmp.Diff(want, r, cmp.AllowUnexported(progressRate{})); diff != "" {
		t.Fatalf("rate (-want +got):\n%s", diff)
	}
	// Moved at 2 s, behind: stalled from 2 s + the timeout on.
	p := progressOf(group(committedAt("t", 0, 500, 1300)))
	if got := tr.stalled(start.Add(4*time.Second), p, 3*time.Second); len(got) != 0 {
		t.Fatalf("stalled after 2 s of 3: %v", got)
	}
	if got := tr.stalled(start.Add(5*time.Second), p, 3*time.Second); len(got) != 1 || got[0].Partition != 0 {
		t.Fatalf("stalled after 3 s of 3: %v, want t/0", got)
	}
}

// The wait block's time conditions on the real broker, against a consumer that runs and one that
// stopped.

// A live topic: five records ten minutes old, then three fresh ones, the group committed at 0.
// A consumer of the group (franz-go) starts a moment after the step and commits record by
// record up to 5, then keeps its membership and commits no more. wait.max_time_lag = 60s alone
// ends the wait once the oldest unread record is fresh, with 3 records still unread: it does
// not wait for total_lag 0, which a live topic never reaches.
func TestAccConsumerGroupOffsets_waitMaxTimeLagWithRunningConsumer(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	group := topic + "-group"
	old := time.Now().Add(-10 * time.Minute).Truncate(time.Millisecond)
	k.ProduceBatch(topic, 0, "lz4", old, old.Add(time.Second), old.Add(2*time.Second), old.Add(3*time.Second), old.Add(4*time.Second))
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 0}})
	var (
		w     readWindow
		fresh time.Time
		done  func() error
		next  = &acctest.Record{}
	)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig: func() {
				w.open()
				fresh = time.Now().Truncate(time.Millisecond)
				k.ProduceBatch(topic, 0, "lz4", fresh, fresh.Add(time.Millisecond), fresh.Add(2*time.Millisecond))
				*next = *oracleNext(t, k, topic, 0, 5, 0, 5, fresh)
				done = k.LiveConsumer(group, topic, map[int32]int64{0: 5}, 3*time.Second, 300*time.Millisecond)
			},
			Config: waitConfig(t, group, topic, `max_time_lag  = "60s"
    timeout       = "2m"
    poll_interval = "1s"`),
			ConfigStateChecks: expectTimeLag(t, k, groupAddr, group, "Stable", &w, []timedEntry{{groupEntry{topic, 0, 5, 8}, next}}),
		}},
	})
	if err := done(); err != nil {
		t.Fatalf("the consumer: %v", err)
	}
}

// A group whose consumer read two partitions, committed and stopped (the group is Empty), and
// then fell behind on records ten minutes old: with stall_timeout = 3s the wait fails once no
// commit of a partition behind has moved for that long, long before its 10-minute timeout, naming
// the group's state and each such partition with its figures.
func TestAccConsumerGroupOffsets_waitStallsWithStoppedConsumer(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 2, nil)
	group := topic + "-group"
	old := time.Now().Add(-10 * time.Minute).Truncate(time.Millisecond)
	k.ProduceAt(topic, 0, old, old.Add(time.Second))
	k.ProduceAt(topic, 1, old)
	k.Consumer(group, 3, topic).Close()
	k.ProduceAt(topic, 0, old.Add(2*time.Second), old.Add(3*time.Second), old.Add(4*time.Second))
	k.ProduceAt(topic, 1, old.Add(5*time.Second), old.Add(6*time.Second))
	oracleNext(t, k, topic, 0, 2, 0, 2, old.Add(2*time.Second))
	oracleNext(t, k, topic, 1, 1, 0, 1, old.Add(5*time.Second))
	began := time.Now()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: waitConfig(t, group, topic, `max_time_lag  = "60s"
    stall_timeout = "3s"
    timeout       = "10m"
    poll_interval = "1s"`),
			ExpectError: errorLike("Consumer group stalled",
				fmt.Sprintf(`consumer group %q (state "Empty") has stalled: the committed offset of 2 partition(s) not `+
					`caught up did not move for stall_timeout 3s: %s/0 (committed 2, latest 5, lag 3), %[2]s/1 (committed 1, latest 3, lag 2)`, group, topic),
				"max_time_lag_ms", "(max_time_lag 1m0s)", "partitions behind in time:",
				fmt.Sprintf("%s/0 (committed 2, lag 3, time_lag_ms", topic), "next record "+rfc3339ms(old.Add(2*time.Second)),
				fmt.Sprintf("%s/1 (committed 1, lag 2, time_lag_ms", topic), "next record "+rfc3339ms(old.Add(5*time.Second))),
		}},
	})
	// A hang bound, not a timing: the wait must have ended at the stall, not at its timeout.
	if took := time.Since(began); took > 3*time.Minute {
		t.Fatalf("the step took %s: the stall did not end the 10-minute wait", took)
	}
}
