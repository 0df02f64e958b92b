package provider

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// A share group (KIP-932) driven by Kafka's own console share consumer has acknowledged 8 of the 20
// records of a one-partition topic; kafka-share-groups.sh --describe prints START-OFFSET 8, LAG 12.
// kafka_consumer_group_offsets answers the same, idle (no member: not "group not found") and with a
// live member that reads another topic, and a gate on total_lag == 0 fails. Never total_lag = 0.
// kafka_consumer_groups lists it among the topic's readers with the same lag.
func TestAccConsumerGroupOffsets_shareGroup(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	k.RequireShareGroups() // Kafka 3.9 has no share groups: the CI's 3.9 leg skips here
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	other := k.CreateTopic(acctest.TopicName(t, "-other"), 1, nil)
	group := topic + "-share"
	k.Produce(topic, 0, 20)
	k.ShareConsume(group, topic, 8)
	want := acctest.SharePartition{StartOffset: 8, Lag: 12}
	oracle := func() {
		if got := k.ShareGroupOffsets(group)[topic+"/0"]; got != want {
			t.Fatalf("oracle (kafka-share-groups.sh --describe) says %s/0 is at %+v; the test expects %+v", topic, got, want)
		}
	}
	oracle()

	const addr = "data.kafka_consumer_group_offsets.test"
	expect := func(state string) []statecheck.StateCheck {
		return []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("state"), knownvalue.StringExact(state)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("group_type"), knownvalue.StringExact("share")),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("total_lag"), knownvalue.Int64Exact(want.Lag)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("partitions"), knownvalue.ListExact([]knownvalue.Check{
				knownvalue.ObjectExact(map[string]knownvalue.Check{
					"topic": knownvalue.StringExact(topic), "partition": knownvalue.Int64Exact(0),
					"committed_offset": knownvalue.Int64Exact(want.StartOffset), "latest_offset": knownvalue.Int64Exact(20),
					"lag":                   knownvalue.Int64Exact(want.Lag),
					"next_record_timestamp": knownvalue.Null(), "time_lag_ms": knownvalue.Null(), // no fetch_timestamps
					"assigned":  ownedOracle{k, group, topic, 0},
					"caught_up": knownvalue.Bool(want.Lag == 0), // kafka-share-groups.sh's LAG
				}),
			})),
		}
	}
	gate := `
output "gate" {
  value = data.kafka_consumer_group_offsets.test.total_lag
  precondition {
    condition     = data.kafka_consumer_group_offsets.test.total_lag == 0
    error_message = "share group not caught up"
  }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            groupConfig(t, group, ""), // idle: no member
				ConfigStateChecks: expect("Empty"),
			},
			{
				PreConfig:         func() { k.ShareMember(group, other); oracle() },
				Config:            groupConfig(t, group, fmt.Sprintf("topics = [%q]", topic)),
				ConfigStateChecks: expect("Stable"),
			},
			{
				Config:      groupConfig(t, group, fmt.Sprintf("topics = [%q]", topic)) + gate,
				ExpectError: errorLike("share group not caught up"),
			},
			{
				// The readers of the topic: the share group, with its lag (kadm confirms its kind and state).
				Config: consumerGroupsConfig(t, fmt.Sprintf("topics = [%q]", topic)),
				ConfigStateChecks: expectGroups(k, []string{topic}, []groupsEntry{
					{group, "Stable", "share", []string{topic}, want.Lag, "share"},
				}),
			},
		},
	})
	oracle() // the reads changed nothing
}

// Issue 38: an idle share group that subscribed to a topic and has delivered nothing there. Its
// member joined while the topic held no record (share.auto.offset.reset=earliest), was assigned
// the partition and left; then 5 records were produced, which the group's next member would read
// from offset 0. The broker keeps the group's share-partition state without a start offset:
// DescribeShareGroupOffsets answers start offset -1 and lag -1 (kadm), and kafka-share-groups.sh
// --describe lists the group on the partition with START-OFFSET "-" and LAG "-". Both data
// sources read it as a reader that has not caught up: kafka_consumer_groups lists it for the topic
// with listed_because ["subscribed"], and kafka_consumer_group_offsets shows the partition without
// a commit, not caught up since offsets 0 to 4 wait, so a gate on caught_up fails; total_lag is
// null, so total_lag == 0 fails too (no lag measures records without a start offset). Kafka's console
// share consumer then reads the 5 records: they did wait for the group.
func TestAccConsumerGroups_idleShareGroupIsAReader(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	k.RequireShareGroups() // Kafka 3.x has no share groups: the CI's 3.3 and 3.9 legs skip here
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	group := topic + "-share"
	k.ShareSubscribe(group, topic)
	const records = 5
	k.Produce(topic, 0, records)

	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := k.Admin.DescribeShareGroupOffsets(c, group) // the answer the issue names: start offset -1
	if err == nil {
		err = res.Error()
	}
	if err != nil {
		t.Fatalf("kadm DescribeShareGroupOffsets %s: %v", group, err)
	}
	if got, ok := res[group].Offsets[topic][0]; !ok || got.StartOffset != -1 || got.Lag != -1 || got.Err != nil {
		t.Fatalf("kadm DescribeShareGroupOffsets says %s/0 of %s is %+v (present %v); the test expects start offset -1, lag -1",
			topic, group, got, ok)
	}
	none := acctest.SharePartition{StartOffset: -1, Lag: -1} // "-" and "-"
	oracle := func() {
		t.Helper()
		got := k.ShareGroupOffsets(group)
		if len(got) != 1 || got[topic+"/0"] != none {
			t.Fatalf("oracle (kafka-share-groups.sh --describe --group %s) lists %+v; the test expects %s/0 alone, "+
				"START-OFFSET - and LAG -", group, got, topic)
		}
	}
	oracle()

	notCaughtUp := []knownvalue.Check{knownvalue.StringExact(topic + "/0: no start offset, and offsets 0 to 4 wait (the share " +
		"group has delivered nothing from this partition yet): with share.auto.offset.reset=latest, its default, the group would skip them")}
	const addr = "data.kafka_consumer_group_offsets.test"
	offsetsChecks := []statecheck.StateCheck{
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("state"), knownvalue.StringExact("Empty")),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("group_type"), knownvalue.StringExact("share")),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("member_count"), knownvalue.Int64Exact(0)),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("caught_up"), knownvalue.Bool(false)),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("not_caught_up"), knownvalue.ListExact(notCaughtUp)),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("uncommitted_partitions"), knownvalue.Int64Exact(0)),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("total_lag"), knownvalue.Null()),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("max_time_lag_ms"), knownvalue.Null()),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("partitions"), knownvalue.ListExact([]knownvalue.Check{
			knownvalue.ObjectExact(map[string]knownvalue.Check{
				"topic": knownvalue.StringExact(topic), "partition": knownvalue.Int64Exact(0),
				"committed_offset": knownvalue.Null(), "latest_offset": knownvalue.Int64Exact(records),
				"lag": knownvalue.Null(), "next_record_timestamp": knownvalue.Null(), "time_lag_ms": knownvalue.Null(),
				"assigned": ownedOracle{k, group, topic, 0}, "caught_up": knownvalue.Bool(false),
			}),
		})),
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// The readers of the topic: the idle share group, subscribed.
				Config: consumerGroupsConfig(t, fmt.Sprintf("topics = [%q]", topic)),
				ConfigStateChecks: []statecheck.StateCheck{
					groupsOracleAgrees{k: k, entries: []groupsEntry{{group, "Empty", "share", []string{topic}, 0, "share"}}},
					statecheck.ExpectKnownValue("data.kafka_consumer_groups.test", tfjsonpath.New("groups"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"group_id":               knownvalue.StringExact(group),
							"state":                  knownvalue.StringExact("Empty"),
							"protocol_type":          knownvalue.StringExact("share"),
							"group_type":             groupTypeCheck(k, "share"),
							"topics":                 knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(topic)}),
							"listed_because":         knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("subscribed")}),
							"uncommitted_partitions": knownvalue.Int64Exact(0),
							"total_lag":              knownvalue.Null(),
							"max_time_lag_ms":        knownvalue.Null(),
							"caught_up":              knownvalue.Bool(false),
							"not_caught_up":          knownvalue.ListExact(notCaughtUp),
						}),
					})),
				},
			},
			{
				// The group's read covers the topic it subscribed to without topics set.
				Config:            groupConfig(t, group, ""),
				ConfigStateChecks: offsetsChecks,
			},
			{
				// A gate on caught_up, topics set, as the gating guide's recipes have it.
				Config: groupConfig(t, group, fmt.Sprintf("topics = [%q]", topic)) + `
output "gate" {
  value = data.kafka_consumer_group_offsets.test.caught_up
  precondition {
    condition     = data.kafka_consumer_group_offsets.test.caught_up
    error_message = "share group not caught up"
  }
}
`,
				ExpectError: errorLike("share group not caught up"),
			},
		},
	})
	oracle() // the reads changed nothing
	// The records did wait for the group: Kafka's console share consumer, a new member, reads all 5.
	k.ShareConsume(group, topic, records)
}
