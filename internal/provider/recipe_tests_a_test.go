package provider

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// The recipes' own terraform test files, run as a module author runs them: tests/
// mocked.tftest.hcl without a broker, then tests/broker*.tftest.hcl against the broker state each
// Go test arranges (checked first with kadm), the recipe's topic and group names made unique.

// recipeNames rewrites a recipe's names (main.tf and its test files) to names of t's own: each
// pair is a recipe's name and the suffix appended to t's topic name, longer names first so that
// "orders-service" is not read as "orders" followed by "-service".
func recipeNames(t *testing.T, names ...string) (*strings.Replacer, map[string]string) {
	t.Helper()
	base := acctest.TopicName(t, "")
	renamed := map[string]string{}
	var pairs [][2]string
	for i := 0; i < len(names); i += 2 {
		renamed[names[i]] = base + names[i+1]
		pairs = append(pairs, [2]string{names[i], base + names[i+1]})
	}
	slices.SortFunc(pairs, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	var args []string
	for _, p := range pairs {
		args = append(args, p[0], p[1])
	}
	return strings.NewReplacer(args...), renamed
}

// wantLag fails t unless kadm's view of group's lag on topic is lag.
func wantLag(t *testing.T, k *acctest.Kafka, group, topic string, lag int64) {
	t.Helper()
	if got := k.GroupLag(group, topic); got != lag {
		t.Fatalf("oracle: %s's lag on %s is %d; the test arranged %d", group, topic, got, lag)
	}
}

// behindOnZero arranges topic with 3 records on partition 0 and 1 on partition 1, and group
// committed at 1 and 1: 2 records behind on partition 0. caughtUp then commits at the log end.
func behindOnZero(t *testing.T, k *acctest.Kafka, topic, group string) (caughtUp func()) {
	t.Helper()
	k.CreateTopic(topic, 2, nil)
	k.Produce(topic, 0, 3)
	k.Produce(topic, 1, 1)
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 1, 1: 1}})
	wantLag(t, k, group, topic, 2)
	return func() {
		k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 3, 1: 1}})
		wantLag(t, k, group, topic, 0)
	}
}

func TestRecipeMocked_checkLag(t *testing.T) {
	wantRuns(t, terraformTest(t, "check-lag", nil, "tests/mocked.tftest.hcl"), 3)
}

func TestRecipeMocked_rolloutPrecondition(t *testing.T) {
	wantRuns(t, terraformTest(t, "rollout-precondition", nil, "tests/mocked.tftest.hcl"), 3)
}

func TestRecipeMocked_liveTopicTimeLag(t *testing.T) {
	wantRuns(t, terraformTest(t, "live-topic-time-lag", nil, "tests/mocked.tftest.hcl"), 4)
}

func TestRecipeMocked_waitForDrain(t *testing.T) {
	wantRuns(t, terraformTest(t, "wait-for-drain", nil, "tests/mocked.tftest.hcl"), 4)
}

func TestRecipeMocked_firstRollout(t *testing.T) {
	wantRuns(t, terraformTest(t, "first-rollout", nil, "tests/mocked.tftest.hcl"), 4)
}

func TestRecipeMocked_topicOutputs(t *testing.T) {
	wantRuns(t, terraformTest(t, "topic-outputs", nil, "tests/mocked.tftest.hcl"), 3)
}

// check-lag warns while orders-service is 2 records behind, and passes once it has caught up.
func TestAccRecipeBroker_checkLag(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	r, n := recipeNames(t, "orders", "", "orders-service", "-g")
	caughtUp := behindOnZero(t, k, n["orders"], n["orders-service"])
	wantRuns(t, terraformTest(t, "check-lag", r, "tests/broker.tftest.hcl"), 1)
	caughtUp()
	wantRuns(t, terraformTest(t, "check-lag", r, "tests/broker_caught_up.tftest.hcl"), 1)
}

// The rollout is blocked while billing-service is 2 records behind (and the data source says
// exactly where), and planned once it has caught up.
func TestAccRecipeBroker_rolloutPrecondition(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	r, n := recipeNames(t, "invoices", "", "billing-service", "-g")
	caughtUp := behindOnZero(t, k, n["invoices"], n["billing-service"])
	wantRuns(t, terraformTest(t, "rollout-precondition", r, "tests/broker.tftest.hcl"), 2)
	caughtUp()
	wantRuns(t, terraformTest(t, "rollout-precondition", r, "tests/broker_caught_up.tftest.hcl"), 1)
}

// The rollout is blocked while billing-service is an hour behind, and planned once it is a moment
// behind; the apply meant to wait finds billing-service-v2 caught up at once.
func TestAccRecipeBroker_liveTopicTimeLag(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	r, n := recipeNames(t, "invoices", "", "billing-service", "-g", "billing-service-v2", "-g-v2")
	topic, group, v2 := n["invoices"], n["billing-service"], n["billing-service-v2"]
	k.CreateTopic(topic, 2, nil)
	now := time.Now().Truncate(time.Millisecond)
	k.ProduceAt(topic, 0, now.Add(-time.Hour), now, now.Add(time.Millisecond))
	k.ProduceAt(topic, 1, now)
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 0, 1: 1}})
	k.CommitOffsets(v2, map[string]map[int32]int64{topic: {0: 3, 1: 1}})
	oracleNext(t, k, topic, 0, 0, 0, 0, now.Add(-time.Hour))
	wantLag(t, k, group, topic, 3)
	wantLag(t, k, v2, topic, 0)
	wantRuns(t, terraformTest(t, "live-topic-time-lag", r, "tests/broker.tftest.hcl"), 3)
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 1, 1: 1}})
	oracleNext(t, k, topic, 0, 1, 0, 1, now)
	wantRuns(t, terraformTest(t, "live-topic-time-lag", r, "tests/broker_caught_up.tftest.hcl"), 1)
}

// Without -var wait_for_drain=true a lagging group is read once (no wait: the runs take seconds,
// not the recipe's 10-minute timeout) and the cut-over is refused, at apply and at a later plan;
// with it, once the group has drained, the apply cuts over.
func TestAccRecipeBroker_waitForDrain(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	r, n := recipeNames(t, "orders", "", "orders-service", "-g")
	caughtUp := behindOnZero(t, k, n["orders"], n["orders-service"])
	start := time.Now()
	wantRuns(t, terraformTest(t, "wait-for-drain", r, "tests/broker.tftest.hcl"), 3)
	if d := time.Since(start); d > 2*time.Minute {
		t.Fatalf("the runs without the trigger took %s: they waited", d)
	}
	caughtUp()
	// The trigger as the apply meant to wait passes it, on the command line.
	wantRuns(t, terraformTest(t, "wait-for-drain", r, "tests/broker_caught_up.tftest.hcl", "wait_for_drain=true"), 1)
}

// Before the new consumer's first commit its group does not exist: the apply without the trigger
// deploys, reads exists = false and refuses the cut-over. Once the group has committed at the log
// end, the apply meant to wait cuts over.
func TestAccRecipeBroker_firstRollout(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	r, n := recipeNames(t, "shipments", "", "shipping-service", "-g")
	topic, group := n["shipments"], n["shipping-service"]
	k.CreateTopic(topic, 2, nil)
	k.Produce(topic, 0, 3)
	k.Produce(topic, 1, 1)
	if _, listed := k.ListedGroups()[group]; listed || len(k.GroupCommitted(group)) > 0 {
		t.Fatalf("oracle: %s exists before its first commit", group)
	}
	wantRuns(t, terraformTest(t, "first-rollout", r, "tests/broker.tftest.hcl"), 2)
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 3, 1: 1}})
	wantLag(t, k, group, topic, 0)
	wantRuns(t, terraformTest(t, "first-rollout", r, "tests/broker_caught_up.tftest.hcl", "wait_for_catch_up=true"), 1)
}

// The outputs print payments' partitions, record count, each partition's span, and where a
// replay from 24 hours ago starts on partition 0.
func TestAccRecipeBroker_topicOutputs(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	r, n := recipeNames(t, "payments", "")
	topic := n["payments"]
	k.CreateTopic(topic, 3, nil)
	now := time.Now().Truncate(time.Millisecond)
	k.ProduceAt(topic, 0, now.Add(-48*time.Hour), now.Add(-2*time.Hour), now.Add(-time.Hour))
	k.Produce(topic, 1, 2)
	k.DeleteRecordsBefore(topic, 1, 1)
	for p, want := range [][2]int64{{0, 3}, {1, 2}, {0, 0}} {
		if e, l := k.Offsets(topic, int32(p)); e != want[0] || l != want[1] {
			t.Fatalf("oracle: partition %d spans %d..%d; the test arranged %d..%d", p, e, l, want[0], want[1])
		}
	}
	if at, _ := k.ListOffset(topic, 0, now.Add(-24*time.Hour).UnixMilli(), 0); at != 1 {
		t.Fatalf("oracle: partition 0's first offset 24 hours ago is %d; the test arranged 1", at)
	}
	wantRuns(t, terraformTest(t, "topic-outputs", r, "tests/broker.tftest.hcl"), 1)
}
