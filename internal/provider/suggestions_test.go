package provider

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// "Topic not found" and "Consumer group not found" suggest the near names the read already holds:
// the topics of the Metadata answer for every topic (kafka_consumer_groups; a read after one in
// the same plan), and the groups the coordinator listed. A read that holds no near name suggests
// none.
func TestAccNotFoundSuggestsNearNames(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	wrongCase := strings.ToUpper(topic)
	group := topic + "-billing"
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 0}})
	if slices.Contains(k.Topics(), wrongCase) {
		t.Fatalf("oracle: %s exists", wrongCase)
	}
	if _, listed := k.ListedGroups()[group]; !listed {
		t.Fatalf("oracle: %s is not listed", group)
	}
	misspelt := topic + "-biling"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      consumerGroupsConfig(t, fmt.Sprintf("topics = [%q]", wrongCase)),
				ExpectError: errorLike("Topic not found", fmt.Sprintf("Did you mean %q?", topic)),
			},
			{
				// The topic read first, in one Metadata request for every topic; the misspelt one
				// then asks Metadata for itself alone, and the suggestion comes from the first.
				Config: acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_topics_offsets" "all" {
  name_regex = %q
}
data "kafka_topic_offsets" "test" {
  topic      = %q
  depends_on = [data.kafka_topics_offsets.all]
}
`, topic, wrongCase),
				ExpectError: errorLike("Topic not found", fmt.Sprintf("Did you mean %q?", topic)),
			},
			{
				Config:      groupConfig(t, misspelt, fmt.Sprintf("topics = [%q]", topic)),
				ExpectError: errorLike("Consumer group not found", fmt.Sprintf("Did you mean %q?", group)),
			},
			{
				Config: groupConfig(t, misspelt, fmt.Sprintf("topics = [%q]\n  allow_missing = true", topic)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.kafka_consumer_group_offsets.test", tfjsonpath.New("not_caught_up"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringRegexp(
							errorLike(fmt.Sprintf("consumer group %q does not exist", misspelt), fmt.Sprintf("Did you mean %q?", group)))})),
				},
			},
			{
				// Nothing near: no suggestion.
				Config:      groupConfig(t, topic+"-zzzzzzzz", fmt.Sprintf("topics = [%q]", topic)),
				ExpectError: errorLike("Consumer group not found", "answers no committed offset for it. Check the group id"),
			},
		},
	})
}
