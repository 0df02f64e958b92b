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

// A group 5 offsets behind; `topics = []` (an upstream regex that matched nothing) must not read as
// caught up. It is an error on topics while planning, and during apply when the set was unknown
// while planning (Terraform validates the configuration again before that read; Read refuses an
// empty set too); the same for kafka_consumer_groups, where an empty set would list no reader at
// all.
func TestAccEmptyTopics_neverCaughtUp(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	group := topic + "-group"
	k.Produce(topic, 0, 8)
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 3}})
	if lag := k.GroupLag(group); lag != 5 {
		t.Fatalf("oracle (kadm) says group %s lags %d; the test needs 5", group, lag)
	}
	// known: topics = [] while planning; unknown: the same empty set, known only at apply (timestamp()
	// is unknown while planning, so the condition is too).
	const unknownEmpty = `
locals {
  upstream = toset(timestamp() != "" ? [] : ["never"])
}
`
	groupOffsets := func(topics string) string {
		return fmt.Sprintf("data \"kafka_consumer_group_offsets\" \"test\" {\n  group_id = %q\n  topics = %s\n}\n", group, topics)
	}
	groups := func(topics string) string {
		return fmt.Sprintf("data \"kafka_consumer_groups\" \"test\" {\n  topics = %s\n}\n", topics)
	}
	provider := acctest.ProviderBlock(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: provider + groupOffsets(fmt.Sprintf("[%q]", topic)),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(
					"data.kafka_consumer_group_offsets.test", tfjsonpath.New("total_lag"), knownvalue.Int64Exact(5))},
			},
			{
				Config:      provider + groupOffsets("[]"),
				ExpectError: errorLike("Empty topics set", "nothing would be read, and total_lag would be 0"),
			},
			{
				Config:      provider + unknownEmpty + groupOffsets("local.upstream"),
				ExpectError: errorLike("Empty topics set", "nothing would be read, and total_lag would be 0"),
			},
			{
				Config:      provider + groups("[]"),
				ExpectError: errorLike("Empty topics set", "no group would be read, and groups would be empty"),
			},
			{
				Config:      provider + unknownEmpty + groups("local.upstream"),
				ExpectError: errorLike("Empty topics set", "no group would be read, and groups would be empty"),
			},
		},
	})
}
