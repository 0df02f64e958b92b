package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// committedAt is a partition with a commit, its lag as group_offsets.go computes it (latest − committed).
func committedAt(topic string, partition int, committed, latest int64) kafkaclient.GroupPartitionOffsets {
	lag := latest - committed
	return kafkaclient.GroupPartitionOffsets{Topic: topic, Partition: partition, Committed: &committed, Latest: latest, Lag: &lag}
}

func uncommitted(topic string, partition int, latest int64) kafkaclient.GroupPartitionOffsets {
	return kafkaclient.GroupPartitionOffsets{Topic: topic, Partition: partition, Latest: latest}
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

func group(ps ...kafkaclient.GroupPartitionOffsets) kafkaclient.GroupOffsets {
	return kafkaclient.GroupOffsets{State: "Stable", Partitions: ps}
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
	s := waitSettings{maxTotalLag: 0, timeout: time.Minute, pollInterval: time.Millisecond}
	res, err := waitForGroup(context.Background(), "g", s, read)
	if err != nil {
		t.Fatal(err)
	}
	if *n != 4 || *res.Partitions[0].Committed != 5 || *res.Partitions[1].Committed != 3 {
		t.Fatalf("stopped after %d reads with %+v; want the 4th read", *n, res.Partitions[0])
	}

	read, n = reads(group(committedAt("t", 0, 1, 5), committedAt("t", 1, 3, 3)))
	s.maxTotalLag = 4
	if _, err := waitForGroup(context.Background(), "g", s, read); err != nil || *n != 1 {
		t.Fatalf("max_total_lag 4 with total_lag 4: got %v after %d reads, want done after 1", err, *n)
	}
}

// When the time runs out, the error names the partitions still behind and without a commit,
// with the last figures.
func TestWaitForGroupTimesOutWithLastFigures(t *testing.T) {
	read, _ := reads(group(committedAt("orders", 0, 1, 5), uncommitted("orders", 1, 3), committedAt("orders", 2, 7, 7),
		committedAt("orders", 3, 12, 10)))
	s := waitSettings{maxTotalLag: 2, timeout: 50 * time.Millisecond, pollInterval: 10 * time.Millisecond}
	_, err := waitForGroup(context.Background(), "g", s, read)
	var behind *groupBehindError
	if !errors.As(err, &behind) {
		t.Fatalf("got %v, want a groupBehindError", err)
	}
	for _, want := range []string{
		`consumer group "g" did not catch up within the wait timeout of 50ms`,
		"last read: total_lag 4 (max_total_lag 2)",
		"partitions behind: orders/0 (committed 1, latest 5, lag 4)",
		"partitions whose commit lies past the log end (negative lag: a consumer resets there): orders/3 (committed 12, latest 10, lag -2)",
		"partitions without a commit: orders/1 (latest 3)",
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

func waitConfig(t *testing.T, group, topic, wait string) string {
	return groupConfig(t, group, fmt.Sprintf("topics = [%q]\n  wait {\n    %s\n  }", topic, wait))
}

// A consumer catches up while the data source waits: the read ends with total_lag 0 and the
// consumer's commits (kadm agrees). The consumer starts a moment after the step does and stays
// in the group until the test ends; the wait polls every second for up to a minute.
func TestAccConsumerGroupOffsets_waitSucceeds(t *testing.T) {
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
				fmt.Sprintf("partitions behind: %s/0 (committed 1, latest 5, lag 4)", topic),
				fmt.Sprintf("partitions without a commit: %s/1 (latest 0)", topic)),
		}},
	})
}

// A wait block needs a timeout, and bounds it; checked while planning, without a broker.
func TestWaitBlockValidation(t *testing.T) {
	for _, tc := range []struct{ wait, want string }{
		{`poll_interval = "1s"`, `Invalid Attribute Combination.*wait.timeout.*must be specified`},
		{`timeout = "25h"`, `Invalid duration.*"25h" is outside the allowed range: must be a Go duration from 1s to 24h0m0s`},
		{`timeout = "10"`, `Invalid Time Duration String Value`},
		{"timeout = \"1m\"\n    max_total_lag = -1", `max_total_lag.*must be at least 0`},
	} {
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
	}
}
