package provider

import (
	"fmt"
	"testing"

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
