package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// Missing on purpose: with allow_missing, a group that does not exist yet reads as
// exists = false and not caught up, with the reason; without it, the error stays.
func TestAccConsumerGroupOffsets_allowMissing(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	group := topic + "-not-yet"
	addr := "data.kafka_consumer_group_offsets.test"
	at := tfjsonpath.New[string]
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      groupConfig(t, group, ""),
				ExpectError: errorLike("Consumer group not found", group),
			},
			{
				Config: groupConfig(t, group, "allow_missing = true"),
				ConfigStateChecks: []statecheck.StateCheck{
					groupAbsent{k: k, group: group},
					statecheck.ExpectKnownValue(addr, at("exists"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(addr, at("caught_up"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(addr, at("not_caught_up"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringRegexp(regexp.MustCompile(`(?i)group.*` + regexp.QuoteMeta(group)))})),
					statecheck.ExpectKnownValue(addr, at("total_lag"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, at("partitions"), knownvalue.ListExact(nil)),
					statecheck.ExpectKnownValue(addr, at("committed_offsets"), knownvalue.MapExact(nil)),
				},
			},
			{
				// Once the group commits, the same configuration reads it.
				PreConfig: func() {
					k.Produce(topic, 0, 2)
					k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 2}})
				},
				Config: groupConfig(t, group, "allow_missing = true"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, at("exists"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, at("caught_up"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, at("total_lag"), knownvalue.Int64Exact(0)),
					// By "topic/partition", as a mock sets it: the commit kadm made.
					statecheck.ExpectKnownValue(addr, at("committed_offsets"), knownvalue.MapExact(map[string]knownvalue.Check{
						topic + "/0": knownvalue.Int64Exact(2)})),
				},
			},
		},
	})
}

// An authorization gap is not a missing group. Group "-gb" has committed only on a topic the
// provider's principal may not DESCRIBE: Kafka leaves it out of OffsetFetch, and ListGroups (kadm,
// as a superuser) lists the group Empty. Read without topics and with allow_missing, it exists, is
// not caught up, and says first why: without DESCRIBE on the cluster the read cannot tell which
// topics are hidden, with it the brokers' log directories name them. A group nobody created ("-gm")
// is missing where the read names its topics (each visible, none with a commit); without topics,
// read by a principal from whom topics of the cluster are hidden, it is not believed missing
// either: exists, Dead, not caught up for the same reason.
func TestAccConsumerGroupOffsets_hiddenCommitsAreNotMissing(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	auth := acctest.Auth(t)
	allowed := k.CreateTopic(acctest.TopicName(t, "-allowed"), 1, nil)
	denied := k.CreateTopic(acctest.TopicName(t, "-denied"), 1, nil)
	k.Produce(denied, 0, 4)
	hidden, nobody := allowed+"-gb", allowed+"-gm"
	k.CommitOffsets(hidden, map[string]map[int32]int64{denied: {0: 1}})
	if state := k.ListedGroups()[hidden][0]; state != "Empty" {
		t.Fatalf("oracle: ListGroups lists %s as %q, want Empty", hidden, state)
	}
	if committed := k.GroupCommitted(hidden); fmt.Sprint(committed) != fmt.Sprint(map[string]map[int32]int64{denied: {0: 1}}) {
		t.Fatalf("oracle: %s committed %v, want %s/0 at 1 alone", hidden, committed, denied)
	}
	user, password := k.LimitedUser([]string{hidden, nobody}, []string{allowed})
	const addr = "data.kafka_consumer_group_offsets.test"
	at := tfjsonpath.New[string]
	cannotTell := regexp.MustCompile(`^topics not seen: cannot tell whether the provider's principal may DESCRIBE ` +
		`every topic \(broker \d+ \(\S+\) answered DescribeLogDirs with CLUSTER_AUTHORIZATION_FAILED \(error code 31\)\)`)
	notMissing := func(state string, unseen *regexp.Regexp) []statecheck.StateCheck {
		return []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, at("exists"), knownvalue.Bool(true)),
			statecheck.ExpectKnownValue(addr, at("state"), knownvalue.StringExact(state)),
			statecheck.ExpectKnownValue(addr, at("caught_up"), knownvalue.Bool(false)),
			statecheck.ExpectKnownValue(addr, at("total_lag"), knownvalue.Null()),
			statecheck.ExpectKnownValue(addr, at("partitions"), knownvalue.ListExact(nil)),
			statecheck.ExpectKnownValue(addr, at("not_caught_up"), knownvalue.ListExact([]knownvalue.Check{
				knownvalue.StringRegexp(unseen),
				knownvalue.StringExact("no partition: the group has no commit and no member on the selected topics, " +
					"so the cluster cannot vouch that it has read anything"),
			})),
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            limitedGroupConfig(auth, user, password, hidden)("allow_missing = true"),
				ConfigStateChecks: notMissing("Empty", cannotTell),
			},
			{
				PreConfig:         func() { k.AllowClusterDescribe(user, password) },
				Config:            limitedGroupConfig(auth, user, password, hidden)("allow_missing = true"),
				ConfigStateChecks: notMissing("Empty", hiddenTopicsReason),
			},
			{
				Config: limitedGroupConfig(auth, user, password, nobody)(fmt.Sprintf("allow_missing = true\n  topics = [%q]", allowed)),
				ConfigStateChecks: []statecheck.StateCheck{
					groupAbsent{k: k, group: nobody},
					statecheck.ExpectKnownValue(addr, at("exists"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(addr, at("caught_up"), knownvalue.Bool(false)),
				},
			},
			{
				Config:            limitedGroupConfig(auth, user, password, nobody)("allow_missing = true"),
				ConfigStateChecks: append(notMissing("Dead", hiddenTopicsReason), groupAbsent{k: k, group: nobody}),
			},
		},
	})
}

// With allow_missing, a topic deleted after a read reads as exists = false: no partition and no
// message_count, so a gate on message_count == 0 does not read it as drained; the partition's
// offsets are null. Without it, the error stays.
func TestAccTopicOffsets_allowMissing(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 2, nil)
	k.Produce(topic, 1, 3)
	config := func(allow bool) string {
		return acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_topic_offsets" "test" {
  topic         = %[1]q
  allow_missing = %[2]v
}
data "kafka_partition_offsets" "test" {
  topic         = %[1]q
  partition     = 1
  allow_missing = %[2]v
}
`, topic, allow)
	}
	topicAddr, partitionAddr, at := "data.kafka_topic_offsets.test", "data.kafka_partition_offsets.test", tfjsonpath.New[string]
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(true),
				ConfigStateChecks: []statecheck.StateCheck{
					oracleAgrees{t: t, k: k, topic: topic, partition: 1, earliest: 0, latest: 3},
					statecheck.ExpectKnownValue(topicAddr, at("exists"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(topicAddr, at("message_count"), knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue(partitionAddr, at("exists"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(partitionAddr, at("latest_offset"), knownvalue.Int64Exact(3)),
				},
			},
			{
				PreConfig: func() { k.DeleteTopic(topic) },
				Config:    config(true),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(topicAddr, at("exists"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(topicAddr, at("partition_count"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue(topicAddr, at("message_count"), knownvalue.Null()),
					statecheck.ExpectKnownValue(topicAddr, at("partitions"), knownvalue.ListExact(nil)),
					statecheck.ExpectKnownValue(partitionAddr, at("exists"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(partitionAddr, at("earliest_offset"), knownvalue.Null()),
					statecheck.ExpectKnownValue(partitionAddr, at("latest_offset"), knownvalue.Null()),
				},
			},
			{
				Config:      config(false),
				ExpectError: errorLike("Topic not found", topic),
			},
		},
	})
}

// groupAbsent is the oracle for a group that does not exist: kadm's ListGroups does not list it.
type groupAbsent struct {
	k     *acctest.Kafka
	group string
}

func (o groupAbsent) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if state, listed := o.k.ListedGroups()[o.group]; listed {
		resp.Error = fmt.Errorf("oracle (kadm ListGroups) lists group %s as %v; the test needs it absent", o.group, state)
	}
}
