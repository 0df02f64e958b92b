package provider

import (
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// The gating guide's time-lag recipes, run as written from examples/gating against the broker, with
// the topics and groups they name arranged by the test: the precondition passes when the group is
// where the recipe says it must be, and fails when it is not.

// gatingRecipe is a recipe's directory, applied as it is. Its terraform block names the provider
// by its registry address, which the in-process provider then serves; as its files hold a
// provider block, the test steps (not the test case) name the provider factories.
func gatingRecipe(t *testing.T, name string) config.TestStepConfigFunc {
	t.Setenv(resource.EnvTfAccProviderNamespace, "kafka-offsets") // registry.terraform.io/kafka-offsets/kafka
	return config.StaticDirectory(filepath.Join("..", "..", "examples", "gating", name))
}

// "A live topic: at most 60 s behind". billing-service has read invoices up to records written
// a moment ago (passes); then its commit on partition 0 goes back to a record an hour old
// (fails, saying how far behind it is). billing-service-v2, which the recipe's wait block waits
// for, has read everything: its time lag, the recipe's output, is 0 (the apply meant to wait,
// -var wait_for_catch_up=true). Then, without that variable, billing-service-v2 behind by an hour:
// the apply reads it once and goes on (a wait would fail after its 2-minute stall_timeout).
func TestAccGatingRecipe_liveTopicTimeLag(t *testing.T) {
	k := acctest.Connect(t)
	dir := gatingRecipe(t, "live-topic-time-lag")
	const topic, group, v2 = "invoices", "billing-service", "billing-service-v2"
	k.CreateTopic(topic, 2, nil)
	hourOld := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	k.ProduceAt(topic, 0, hourOld)
	var (
		w              readWindow
		fresh0, fresh1 = &acctest.Record{}, &acctest.Record{}
	)
	resource.Test(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					w.open()
					// Fresh records, partition 0's the older: they are what billing-service reads next.
					now := time.Now().Truncate(time.Millisecond)
					k.ProduceAt(topic, 0, now, now.Add(time.Millisecond))
					k.ProduceAt(topic, 1, now.Add(2*time.Millisecond))
					k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 1, 1: 0}})
					k.CommitOffsets(v2, map[string]map[int32]int64{topic: {0: 3, 1: 1}})
					*fresh0 = *oracleNext(t, k, topic, 0, 1, 0, 1, now)
					*fresh1 = *oracleNext(t, k, topic, 1, 0, 0, 0, now.Add(2*time.Millisecond))
				},
				ConfigDirectory: dir, ProtoV6ProviderFactories: protoV6ProviderFactories,
				ConfigVariables: config.Variables{"wait_for_catch_up": config.BoolVariable(true)},
				ConfigStateChecks: append(
					expectTimeLag(t, k, "data.kafka_consumer_group_offsets.billing", group, "Empty", &w, []timedEntry{
						{groupEntry{topic, 0, 1, 3}, fresh0}, {groupEntry{topic, 1, 0, 1}, fresh1},
					}),
					statecheck.ExpectKnownValue("data.kafka_consumer_group_offsets.billing_v2_current",
						tfjsonpath.New("max_time_lag_ms"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownOutputValue("billing_v2_time_lag_ms", knownvalue.Int64Exact(0)),
				),
			},
			{
				PreConfig: func() {
					k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 0}})
					oracleNext(t, k, topic, 0, 0, 0, 0, hourOld)
				},
				ConfigDirectory: dir, ProtoV6ProviderFactories: protoV6ProviderFactories,
				// An hour and the test's own time, under 100 s: 3,600,000 to 3,699,999 ms.
				ExpectError: regexp.MustCompile(`(?s)Resource precondition failed.*billing-service\s+is\s+36\d{5}\s+ms\s+behind\s+on\s+invoices\s+\(allowed:\s+60000\)\.`),
			},
			{
				PreConfig: func() {
					k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 1}})
					k.CommitOffsets(v2, map[string]map[int32]int64{topic: {0: 0}})
					oracleNext(t, k, topic, 0, 0, 0, 0, hourOld)
				},
				ConfigDirectory: dir, ProtoV6ProviderFactories: protoV6ProviderFactories,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.kafka_consumer_group_offsets.billing_v2_current",
						tfjsonpath.New("caught_up"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue("data.kafka_consumer_group_offsets.billing_v2_current",
						tfjsonpath.New("total_lag"), knownvalue.Int64Exact(3)),
				},
			},
		},
	})
}

// "Everything produced before the cut-over has been read" reads one kafka_partition_offsets per
// partition (for_each), which terraform-plugin-testing cannot shim: the recipe runs through its
// own terraform test files, in TestAccRecipeBroker_readBeforeCutOver (recipe_tests_b_test.go).

// "Retire many topics, and check who still reads them", run as written from examples/gating with
// the three readers a legacy topic family has in the wild: a classic consumer group that has
// read and committed everything, a share group (KIP-932) whose console consumer acknowledged every
// record, and a consumer just deployed with auto-commit off, assigned legacy.b and never committed.
// The recipe names all three; the gate refuses the retirement while the topics were written in
// the last week (here, a moment ago), and names the reader without a commit as not caught up
// (its lag is unknown). On a broker without share
// groups (Kafka 3.9) the share reader is left out, saying so.
func TestAccGatingRecipe_retireTopicGroups(t *testing.T) {
	k := acctest.Connect(t)
	dir := gatingRecipe(t, "retire-topic-groups")
	a, b := k.CreateTopic("legacy.a", 1, nil), k.CreateTopic("legacy.b", 1, nil)
	k.Produce(a, 0, 2)
	k.Produce(b, 0, 2)
	suffix := acctest.TopicName(t, "")[len("tfacc-"):]
	billing, audit, queue := "legacy-billing-"+suffix, "legacy-audit-"+suffix, "legacy-queue-"+suffix
	k.Consumer(billing, 2, a) // live, committed at the log end
	k.AssignedConsumer(audit, false, b)
	readers := []knownvalue.Check{knownvalue.StringExact(audit), knownvalue.StringExact(billing)}
	if k.SupportsShareGroups() {
		k.ShareConsume(queue, a, 2)
		readers = append(readers, knownvalue.StringExact(queue))
	}
	resource.Test(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				ConfigDirectory: dir, ProtoV6ProviderFactories: protoV6ProviderFactories,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("legacy_readers", knownvalue.ListExact(readers)),
				},
			},
			{
				ConfigDirectory: dir, ProtoV6ProviderFactories: protoV6ProviderFactories,
				ConfigVariables: config.Variables{"retire_legacy_topics": config.BoolVariable(true)},
				ExpectError: regexp.MustCompile(`(?s)Resource precondition failed.*Not\s+yet:\s+legacy\.a:\s+last\s+write\s+20\d\d-\S+\s+\([^)]+\),\s+` +
					`within\s+quiet_for\s+\(168h0m0s\);\s+legacy\.b:\s+last\s+write\s+20\d\d-\S+\s+\([^)]+\),\s+within\s+quiet_for\s+\(168h0m0s\);\s+` +
					`group\s+` + regexp.QuoteMeta(audit) + `\s+has\s+not\s+caught\s+up:\s+legacy\.b/0:\s+no\s+commit\s+while\s+a\s+member\s+reads\s+it`),
			},
		},
	})
}
