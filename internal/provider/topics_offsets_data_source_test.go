package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

func topicsOffsetsConfig(t *testing.T, args string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_topics_offsets" "test" {
  %s
}
`, args)
}

// topicEntry is one expected topic: its partitions' [earliest, latest], which the oracle (kadm)
// must confirm, and whether it is internal.
type topicEntry struct {
	name       string
	partitions [][2]int64
}

func expectTopics(t *testing.T, k *acctest.Kafka, want []topicEntry) []statecheck.StateCheck {
	t.Helper()
	var (
		checks  []statecheck.StateCheck
		entries []knownvalue.Check
	)
	for _, e := range want {
		var count int64
		for p, w := range e.partitions {
			checks = append(checks, oracleAgrees{t: t, k: k, topic: e.name, partition: int32(p), earliest: w[0], latest: w[1]})
			count += w[1] - w[0]
		}
		entries = append(entries, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"name":            knownvalue.StringExact(e.name),
			"partition_count": knownvalue.Int64Exact(int64(len(e.partitions))),
			"message_count":   knownvalue.Int64Exact(count),
			"internal":        knownvalue.Bool(false),
			"last_write_time": knownvalue.Null(), // fetch_last_write_time unset
		}))
	}
	return append(checks, statecheck.ExpectKnownValue("data.kafka_topics_offsets.test", tfjsonpath.New("topics"),
		knownvalue.ListExact(entries)))
}

// A regex selects whole names: prefix\.orders\..* selects the two orders topics (sorted by
// name, every count confirmed by kadm), not one where the pattern matches only a substring,
// nor prefix.orders itself. A pattern that matches nothing gives an empty list; one that is not
// RE2 is refused while planning.
func TestAccTopicsOffsets_regex(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	prefix := acctest.TopicName(t, "")
	b := k.CreateTopic(prefix+".orders.b", 1, nil)
	a := k.CreateTopic(prefix+".orders.a", 3, nil)
	k.CreateTopic("x"+prefix+".orders.c", 1, nil) // matches only as a substring
	k.CreateTopic(prefix+".orders", 1, nil)
	k.Produce(a, 0, 4)
	k.Produce(a, 2, 9)
	k.DeleteRecordsBefore(a, 2, 5)
	k.Produce(b, 0, 2)
	pattern := regexp.QuoteMeta(prefix) + `\.orders\..*`

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Refused while planning (first: Terraform's closing destroy validates the last step).
				Config:      topicsOffsetsConfig(t, `name_regex = "orders(?=x)"`),
				ExpectError: errorLike("Invalid regular expression", "name_regex", "invalid or unsupported Perl syntax"),
			},
			{
				Config: topicsOffsetsConfig(t, fmt.Sprintf("name_regex = %q", pattern)),
				ConfigStateChecks: expectTopics(t, k, []topicEntry{
					{a, [][2]int64{{0, 4}, {0, 0}, {5, 9}}},
					{b, [][2]int64{{0, 2}}},
				}),
			},
			{
				// Drained: a later plan sees message_count 0 on every topic.
				PreConfig: func() {
					k.DeleteRecordsBefore(a, 0, 4)
					k.DeleteRecordsBefore(a, 2, 9)
					k.DeleteRecordsBefore(b, 0, 2)
				},
				Config: topicsOffsetsConfig(t, fmt.Sprintf("name_regex = %q", pattern)),
				ConfigStateChecks: expectTopics(t, k, []topicEntry{
					{a, [][2]int64{{4, 4}, {0, 0}, {9, 9}}},
					{b, [][2]int64{{2, 2}}},
				}),
			},
			{
				Config:            topicsOffsetsConfig(t, fmt.Sprintf("name_regex = %q", prefix+`\.nothing.*`)),
				ConfigStateChecks: expectTopics(t, k, nil),
			},
		},
	})
}

// Internal topics appear only with include_internal = true, marked internal, with the
// partition count kadm reports.
func TestAccTopicsOffsets_internal(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	k.EnsureConsumerOffsetsTopic()
	partitions := k.PartitionCount("__consumer_offsets")
	const addr = "data.kafka_topics_offsets.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            topicsOffsetsConfig(t, `name_regex = "__consumer_offsets"`),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, tfjsonpath.New("topics"), knownvalue.ListExact(nil))},
			},
			{
				Config: topicsOffsetsConfig(t, "name_regex = \"__consumer_offsets\"\n  include_internal = true"),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, tfjsonpath.New("topics"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"name":            knownvalue.StringExact("__consumer_offsets"),
						"partition_count": knownvalue.Int64Exact(int64(partitions)),
						"internal":        knownvalue.Bool(true),
					})}))},
			},
		},
	})
}
