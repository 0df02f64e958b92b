package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

const drainedAddr = "data.kafka_topics_drained.test"

func topicsDrainedConfig(t *testing.T, args string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf("data \"kafka_topics_drained\" \"test\" {\n  %s\n}\n", args)
}

func expectDrained(attr string, want knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(drainedAddr, tfjsonpath.New(attr), want)
}

func stringsExact(values ...string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(values))
	for i, v := range values {
		checks[i] = knownvalue.StringExact(v)
	}
	return knownvalue.ListExact(checks)
}

// One topic written an hour ago whose reader is one record behind, and a topic that does not
// exist: not drained, for the reader alone (quiet for 30 minutes), the missing topic listed; then,
// the reader caught up, drained. Quiet for 2 hours, the write an hour ago keeps it from being
// drained, by the largest timestamp (the records' producer, franz-go's, is idempotent too).
func TestAccTopicsDrained_values(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	missing := acctest.TopicName(t, "missing")
	reader := topic + "-reader"
	at := hourAgo()
	k.ProduceAt(topic, 0, at.Add(-time.Minute), at)
	k.CommitOffsets(reader, map[string]map[int32]int64{topic: {0: 1}})
	if offset, ts := k.ListOffset(topic, 0, -3, 0); offset != 1 || ts != at.UnixMilli() {
		t.Fatalf("oracle: the largest timestamp is %d at offset %d; the test wrote %d at 1", ts, offset, at.UnixMilli())
	}
	if lag := k.GroupLag(reader, topic); lag != 1 {
		t.Fatalf("oracle: %s lags %d; the test arranged 1", reader, lag)
	}
	args := func(quietFor string) string {
		return fmt.Sprintf("topics    = [%q, %q]\n  quiet_for = %q", topic, missing, quietFor)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: topicsDrainedConfig(t, args("30m")),
				ConfigStateChecks: []statecheck.StateCheck{
					expectDrained("drained", knownvalue.Bool(false)),
					expectDrained("not_drained", stringsExact(fmt.Sprintf(
						"group %s has not caught up: %s/0: lag 1 (committed_offset 1, latest_offset 2)", reader, topic))),
					expectDrained("selected_topics", stringsExact(topic)),
					expectDrained("missing_topics", stringsExact(missing)),
					expectDrained("group_ids", stringsExact(reader)),
					expectDrained("last_write_time", knownvalue.StringExact(rfc3339ms(at))),
				},
			},
			{
				PreConfig: func() { k.CommitOffsets(reader, map[string]map[int32]int64{topic: {0: 2}}) },
				Config:    topicsDrainedConfig(t, args("30m")),
				ConfigStateChecks: []statecheck.StateCheck{
					expectDrained("drained", knownvalue.Bool(true)),
					expectDrained("not_drained", knownvalue.ListExact(nil)),
				},
			},
			{
				Config: topicsDrainedConfig(t, args("2h")),
				ConfigStateChecks: []statecheck.StateCheck{
					expectDrained("drained", knownvalue.Bool(false)),
					expectDrained("not_drained", knownvalue.ListExact([]knownvalue.Check{knownvalue.StringRegexp(regexp.MustCompile(
						`^` + regexp.QuoteMeta(topic+": last write "+rfc3339ms(at)+" (") + `.*\), within quiet_for \(2h0m0s\)$`))})),
				},
			},
		},
	})
}

// A pattern that matches no topic: drained, nothing selected, and a warning says so (the plans
// after a whole family's retirement pass).
func TestAccTopicsDrained_noMatch(t *testing.T) {
	t.Parallel()
	pattern := regexp.QuoteMeta(acctest.TopicName(t, "none")) + `\..*`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: topicsDrainedConfig(t, fmt.Sprintf("name_regex = %q\n  quiet_for = \"1h\"", pattern)),
			ConfigStateChecks: []statecheck.StateCheck{
				expectDrained("drained", knownvalue.Bool(true)),
				expectDrained("selected_topics", knownvalue.ListExact(nil)),
				expectDrained("missing_topics", knownvalue.ListExact(nil)),
				expectDrained("group_ids", knownvalue.ListExact(nil)),
			},
		}},
	})
}

// A pattern that matches a topic the principal may not DESCRIBE fails, for the writers' read and
// the drained verdict alike: Kafka leaves the topic out of Metadata, where a transaction is open
// (3 records), and a read without it would say nobody writes there.
func TestAccTopicsDrained_hiddenTopic(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	auth := acctest.Auth(t)
	prefix := acctest.TopicName(t, "")
	allowed := k.CreateTopic(prefix+".a", 1, nil)
	denied := k.CreateTopic(prefix+".b", 1, nil)
	k.Transaction(k.Transactional(denied+"-txn"), denied, 0, 3, nil)
	if hw, _ := k.ListOffset(denied, 0, -1, 0); hw != 3 {
		t.Fatalf("oracle: %s/0 holds %d offsets; the test wrote 3 in an open transaction", denied, hw)
	}
	user, password := k.LimitedUser(nil, []string{allowed})
	k.AllowClusterDescribe(user, password)
	pattern := regexp.QuoteMeta(prefix) + `\..*`
	hidden := errorLike("Topics hidden from the provider's principal", "may not DESCRIBE 1 topic", "("+denied+")")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      limitedProvider(auth, user, password) + fmt.Sprintf("data \"kafka_topic_producers\" \"test\" {\n  name_regex = %q\n}\n", pattern),
				ExpectError: hidden,
			},
			{
				Config: limitedProvider(auth, user, password) + fmt.Sprintf(
					"data \"kafka_topics_drained\" \"test\" {\n  name_regex = %q\n  quiet_for = \"1h\"\n}\n", pattern),
				ExpectError: hidden,
			},
		},
	})
}

// A transaction that hangs (no coordinator lists it: franz-go's kfake, as Kafka 4 cannot be
// brought to one) keeps the topic from being drained, through retire-drained-topic as written.
func TestAccGatingRecipe_retireDrainedTopicHangingTransaction(t *testing.T) {
	t.Parallel()
	c := hangingTransaction(t)
	recipe := rewrittenRecipe(t, "retire-drained-topic", strings.NewReplacer(`provider "kafka" {}`,
		fmt.Sprintf("provider \"kafka\" {\n  bootstrap_servers = [%q]\n}", c.ListenAddrs()[0])))
	resource.Test(t, resource.TestCase{Steps: []resource.TestStep{{
		ConfigDirectory: recipe,
		ConfigVariables: map[string]config.Variable{"topic": config.StringVariable("orders"),
			"retire_audit_topic": config.BoolVariable(true), "quiet_for": config.StringVariable("0s")},
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		ExpectError: regexp.MustCompile(`(?s)Resource precondition failed.*Topic\s+orders\s+is\s+not\s+drained:.*orders:\s+1\s+open\s+` +
			`transaction\s+\(1\s+hanging\)`),
	}}})
}
