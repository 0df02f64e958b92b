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

func groupConfig(t *testing.T, group string, extra string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_consumer_group_offsets" "test" {
  group_id = %q
  %s
}
`, group, extra)
}

// groupEntry is one expected partition; committed < 0 means no commit (null committed and lag).
type groupEntry struct {
	topic             string
	partition         int64
	committed, latest int64
}

func (e groupEntry) check() knownvalue.Check {
	committed, lag := knownvalue.Check(knownvalue.Null()), knownvalue.Check(knownvalue.Null())
	if e.committed >= 0 {
		committed, lag = knownvalue.Int64Exact(e.committed), knownvalue.Int64Exact(max(e.latest-e.committed, 0))
	}
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"topic": knownvalue.StringExact(e.topic), "partition": knownvalue.Int64Exact(e.partition),
		"committed_offset": committed, "latest_offset": knownvalue.Int64Exact(e.latest), "lag": lag,
	})
}

// expectGroup checks state, total_lag and partitions; the oracle (kadm) must agree on every
// committed and latest offset first.
func expectGroup(t *testing.T, k *acctest.Kafka, group, state string, entries []groupEntry) []statecheck.StateCheck {
	t.Helper()
	const addr = "data.kafka_consumer_group_offsets.test"
	var (
		checks []knownvalue.Check
		total  int64
	)
	for _, e := range entries {
		checks = append(checks, e.check())
		if e.committed >= 0 {
			total += max(e.latest-e.committed, 0)
		}
	}
	return []statecheck.StateCheck{
		groupOracleAgrees{t: t, k: k, group: group, entries: entries},
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("state"), knownvalue.StringExact(state)),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("total_lag"), knownvalue.Int64Exact(total)),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("partitions"), knownvalue.ListExact(checks)),
	}
}

// A real franz-go group consumer reads everything there is (5 and 3 records), commits and leaves;
// then 4 and 1 more records arrive: lag 4 and 1.
func TestAccConsumerGroupOffsets_lagAfterRealConsumer(t *testing.T) {
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 2, nil)
	group := topic + "-group"
	k.Produce(topic, 0, 5)
	k.Produce(topic, 1, 3)
	consumer := k.Consumer(group, 8, topic)
	consumer.Close() // the group is now Empty, its commits kept
	k.Produce(topic, 0, 4)
	k.Produce(topic, 1, 1)

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: groupConfig(t, group, ""),
			ConfigStateChecks: expectGroup(t, k, group, "Empty", []groupEntry{
				{topic, 0, 5, 9}, {topic, 1, 3, 4},
			}),
		}},
	})
}

// Commits on some partitions only, on two topics; topics restricts the read; an int64 beyond
// 2^53 comes out exact.
func TestAccConsumerGroupOffsets_partialCommitsAndTopics(t *testing.T) {
	k := acctest.Connect(t)
	a := k.CreateTopic(acctest.TopicName(t, "-a"), 3, nil)
	b := k.CreateTopic(acctest.TopicName(t, "-b"), 1, nil)
	group := a + "-group"
	k.Produce(a, 0, 10)
	k.Produce(a, 2, 6)
	k.Produce(b, 0, 2)
	const huge = 9007199254740993 // 2^53 + 1: a float64 would turn it into ...992
	k.CommitOffsets(group, map[string]map[int32]int64{a: {0: 4, 2: 6}, b: {0: huge}})

	onA := []groupEntry{{a, 0, 4, 10}, {a, 1, -1, 0}, {a, 2, 6, 6}}
	all := append(slices.Clone(onA), groupEntry{b, 0, huge, 2})
	slices.SortStableFunc(all, func(x, y groupEntry) int { return strings.Compare(x.topic, y.topic) })
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            groupConfig(t, group, ""),
				ConfigStateChecks: expectGroup(t, k, group, "Empty", all),
			},
			{
				Config:            groupConfig(t, group, fmt.Sprintf("topics = [%q]", a)),
				ConfigStateChecks: expectGroup(t, k, group, "Empty", onA),
			},
			{
				Config:      groupConfig(t, group, fmt.Sprintf("topics = [%q]", a+"-missing")),
				ExpectError: errorLike("Topic not found", a+"-missing"),
			},
		},
	})
}

func TestAccConsumerGroupOffsets_missingGroup(t *testing.T) {
	group := strings.TrimPrefix(acctest.TopicName(t, ""), "tfacc-") + "-nobody"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      groupConfig(t, group, ""),
			ExpectError: errorLike("Consumer group not found", fmt.Sprintf("consumer group %q has no members and no committed offsets", group)),
		}},
	})
}

// Reading a live group (a member is connected) leaves its members, generation and offsets as
// they were: the data source only sends DescribeGroups and OffsetFetch.
func TestAccConsumerGroupOffsets_readOnlyOnALiveGroup(t *testing.T) {
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	group := topic + "-group"
	k.Produce(topic, 0, 3)
	consumer := k.Consumer(group, 3, topic)
	k.Produce(topic, 0, 2)

	stateBefore, membersBefore := k.DescribeGroup(group)
	_, generationBefore := consumer.GroupMetadata()
	committedBefore := k.GroupCommitted(group)

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:            groupConfig(t, group, ""),
			ConfigStateChecks: expectGroup(t, k, group, "Stable", []groupEntry{{topic, 0, 3, 5}}),
		}},
	})

	stateAfter, membersAfter := k.DescribeGroup(group)
	_, generationAfter := consumer.GroupMetadata()
	committedAfter := k.GroupCommitted(group)
	if stateBefore != "Stable" || stateAfter != stateBefore || !slices.Equal(membersBefore, membersAfter) ||
		generationAfter != generationBefore || fmt.Sprint(committedAfter) != fmt.Sprint(committedBefore) {
		t.Fatalf("the group changed: state %s -> %s, members %v -> %v, generation %d -> %d, offsets %v -> %v",
			stateBefore, stateAfter, membersBefore, membersAfter, generationBefore, generationAfter, committedBefore, committedAfter)
	}
}

// Kafka 4's consumer protocol (KIP-848): DescribeGroups does not know these groups, so the state
// comes from ListGroups on the coordinator. A live group is Stable with its exact lag, left
// unchanged by the read; a live group that has not committed yet exists (no error), and with
// topics set shows every partition uncommitted.
func TestAccConsumerGroupOffsets_nextGenConsumerGroup(t *testing.T) {
	k := acctest.Connect(t)
	k.RequireConsumerGroupProtocol() // Kafka 3.9 does not serve it by default: the CI's 3.9 leg skips here
	topic := k.CreateTopic(acctest.TopicName(t, ""), 2, nil)
	group, fresh := topic+"-group", topic+"-fresh"
	k.Produce(topic, 0, 3)
	k.Produce(topic, 1, 2)
	k.NextGenConsumer(group, 5, topic)
	k.NextGenConsumer(fresh, 0, topic)
	k.Produce(topic, 1, 4)
	k.WaitForNextGenGroup(group, "Stable")
	k.WaitForNextGenGroup(fresh, "Stable")
	stateBefore, epochBefore, membersBefore := k.DescribeNextGenGroup(group)
	committedBefore := k.GroupCommitted(group)

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            groupConfig(t, group, ""),
				ConfigStateChecks: expectGroup(t, k, group, "Stable", []groupEntry{{topic, 0, 3, 3}, {topic, 1, 2, 6}}),
			},
			{
				Config:            groupConfig(t, fresh, ""),
				ConfigStateChecks: expectGroup(t, k, fresh, "Stable", nil),
			},
			{
				Config:            groupConfig(t, fresh, fmt.Sprintf("topics = [%q]", topic)),
				ConfigStateChecks: expectGroup(t, k, fresh, "Stable", []groupEntry{{topic, 0, -1, 3}, {topic, 1, -1, 6}}),
			},
		},
	})

	stateAfter, epochAfter, membersAfter := k.DescribeNextGenGroup(group)
	committedAfter := k.GroupCommitted(group)
	if stateAfter != stateBefore || epochAfter != epochBefore || !slices.Equal(membersBefore, membersAfter) ||
		fmt.Sprint(committedAfter) != fmt.Sprint(committedBefore) {
		t.Fatalf("the group changed: state %s -> %s, epoch %d -> %d, members %v -> %v, offsets %v -> %v",
			stateBefore, stateAfter, epochBefore, epochAfter, membersBefore, membersAfter, committedBefore, committedAfter)
	}
}

// A principal that may DESCRIBE the group and one of its two topics: by default the broker's
// OffsetFetch leaves the other topic out (documented), and listing it in topics is an error that
// names Kafka's code and the ACL to grant.
func TestAccConsumerGroupOffsets_limitedPrincipal(t *testing.T) {
	k := acctest.Connect(t)
	auth := acctest.Auth(t)
	allowed := k.CreateTopic(acctest.TopicName(t, "-allowed"), 1, nil)
	denied := k.CreateTopic(acctest.TopicName(t, "-denied"), 1, nil)
	group := allowed + "-group"
	k.Produce(allowed, 0, 5)
	k.Produce(denied, 0, 7)
	k.CommitOffsets(group, map[string]map[int32]int64{allowed: {0: 2}, denied: {0: 3}})
	user, password := k.LimitedUser([]string{group}, []string{allowed})
	config := func(extra string) string {
		return fmt.Sprintf(`
provider "kafka" {
  bootstrap_servers = [%q]
  sasl {
    mechanism = "scram-sha-512"
    username  = %q
    password  = %q
  }
}
data "kafka_consumer_group_offsets" "test" {
  group_id = %q
  %s
}
`, auth.SASLPlaintext, user, password, group, extra)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            config(""),
				ConfigStateChecks: expectGroup(t, k, group, "Empty", []groupEntry{{allowed, 0, 2, 5}}),
			},
			{
				Config: config(fmt.Sprintf("topics = [%q, %q]", allowed, denied)),
				ExpectError: errorLike("Kafka broker refused the request", fmt.Sprintf("topic %q", denied),
					"TOPIC_AUTHORIZATION_FAILED (error code 29)", fmt.Sprintf("needs the ACL operation DESCRIBE on topic %q", denied)),
			},
		},
	})
}
