package provider

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// The wait block's time conditions (issue 17) on the real broker, against a consumer that runs
// and one that stopped.

// A live topic: five records ten minutes old, then three fresh ones, the group committed at 0.
// A consumer of the group (franz-go) starts a moment after the step and commits record by
// record up to 5, then keeps its membership and commits no more. wait.max_time_lag = 60s alone
// ends the wait once the oldest unread record is fresh, with 3 records still unread: it does
// not wait for total_lag 0, which a live topic never reaches.
func TestAccConsumerGroupOffsets_waitMaxTimeLagWithRunningConsumer(t *testing.T) {
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
// commit has moved for that long, long before its 10-minute timeout, naming the group's state
// and each partition behind with its figures.
func TestAccConsumerGroupOffsets_waitStallsWithStoppedConsumer(t *testing.T) {
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
				fmt.Sprintf(`consumer group %q (state "Empty") has stalled: no partition's committed offset moved for`, group),
				"(stall_timeout 3s) while the group is behind",
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
