package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

func consumerGroupsConfig(t *testing.T, args string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_consumer_groups" "test" {
  %s
}
`, args)
}

// groupsEntry is one expected group; topics nil means the oracle's lag over all its topics.
type groupsEntry struct {
	id, state, protocolType string
	topics                  []string
	totalLag                int64
	groupType               string
}

// groupsOracleAgrees asks kadm for each group's state, protocol type (ListGroups) and total lag
// (FetchOffsets and ListEndOffsets) and fails when the broker's answer is not what the test expects.
type groupsOracleAgrees struct {
	k       *acctest.Kafka
	entries []groupsEntry
	filter  []string
}

func (o groupsOracleAgrees) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	listed := o.k.ListedGroups()
	for _, e := range o.entries {
		if got := listed[e.id]; got != [3]string{e.state, e.protocolType, e.groupType} {
			resp.Error = fmt.Errorf("oracle (kadm ListGroups) says group %s is %v; the test expects %s/%q/%s", e.id, got,
				e.state, e.protocolType, e.groupType)
			return
		}
		if e.groupType == "share" {
			continue // its lag is kafka-share-groups.sh's, checked by the test
		}
		if lag := o.k.GroupLag(e.id, o.filter...); lag != e.totalLag {
			resp.Error = fmt.Errorf("oracle (kadm) says group %s lags %d; the test expects %d", e.id, lag, e.totalLag)
			return
		}
	}
}

// check is the group's entry, with max_time_lag_ms as checked (null without fetch_timestamps) and
// listed_because as checked. Every partition these groups own has a commit.
func (e groupsEntry) check(maxTimeLag, because knownvalue.Check) knownvalue.Check {
	var topics []knownvalue.Check
	for _, t := range e.topics {
		topics = append(topics, knownvalue.StringExact(t))
	}
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"group_id":               knownvalue.StringExact(e.id),
		"state":                  knownvalue.StringExact(e.state),
		"protocol_type":          knownvalue.StringExact(e.protocolType),
		"group_type":             knownvalue.StringExact(e.groupType),
		"topics":                 knownvalue.ListExact(topics),
		"listed_because":         because,
		"uncommitted_partitions": knownvalue.Int64Exact(0),
		"total_lag":              knownvalue.Int64Exact(e.totalLag),
		"max_time_lag_ms":        maxTimeLag,
	})
}

// because is listed_because as the oracle sees it when the check runs: "assigned" when kadm
// describes a member of the group owning a partition of filter (of any topic without one),
// "committed" when the test expects commits (topics).
func (e groupsEntry) because(k *acctest.Kafka, filter []string) knownvalue.Check {
	return oracleStrings{what: "listed_because of " + e.id, want: func() []string {
		out := []string{}
		if k.Owns(e.id, filter...) {
			out = append(out, "assigned")
		}
		if len(e.topics) > 0 {
			out = append(out, "committed")
		}
		return out
	}}
}

// oracleStrings is a list of strings that want, asked when the check runs, gives.
type oracleStrings struct {
	what string
	want func() []string
}

func (c oracleStrings) CheckValue(v any) error {
	list, _ := v.([]any)
	got := make([]string, 0, len(list))
	for _, s := range list {
		str, _ := s.(string)
		got = append(got, str)
	}
	if want := c.want(); !slices.Equal(got, want) {
		return fmt.Errorf("%s: got %q, the oracle says %q", c.what, got, want)
	}
	return nil
}

func (c oracleStrings) String() string { return c.what + " as the oracle says" }

func expectGroups(k *acctest.Kafka, filter []string, want []groupsEntry) []statecheck.StateCheck {
	var entries []knownvalue.Check
	for _, e := range want {
		entries = append(entries, e.check(knownvalue.Null(), e.because(k, filter)))
	}
	return []statecheck.StateCheck{
		groupsOracleAgrees{k: k, entries: want, filter: filter},
		statecheck.ExpectKnownValue("data.kafka_consumer_groups.test", tfjsonpath.New("groups"), knownvalue.ListExact(entries)),
	}
}

// Groups of every kind on three topics: a live classic consumer group, a live KIP-848 consumer
// group, an admin-only commit, a Kafka Connect-like group (protocol "connect", no commits) and a
// group whose id matches the pattern only as a substring. Filtered by id (whole match) and by
// topic; every figure confirmed by kadm.
func TestAccConsumerGroups_kindsAndFilters(t *testing.T) {
	k := acctest.Connect(t)
	prefix := acctest.TopicName(t, "")
	a := k.CreateTopic(prefix+"-a", 2, nil)
	b := k.CreateTopic(prefix+"-b", 1, nil)
	c := k.CreateTopic(prefix+"-c", 1, nil)
	classic, nextGen, admin, connect := prefix+"-g1-classic", prefix+"-g2-848", prefix+"-g3-admin", prefix+"-g4-connect"
	k.Produce(a, 0, 5)
	k.Produce(a, 1, 3)
	k.Produce(b, 0, 4)
	k.Produce(c, 0, 6)
	k.Consumer(classic, 8, a) // live; commits 5 and 3
	// Kafka 3.x serves KIP-848 groups only when enabled: there, the group is an admin commit.
	nextGenState, nextGenProtocol, nextGenType := "Empty", "", "classic"
	if k.SupportsNextGenGroups() {
		k.NextGenConsumer(nextGen, 4, b)
		k.WaitForNextGenGroup(nextGen, "Stable")
		nextGenState, nextGenProtocol, nextGenType = "Stable", "consumer", "consumer"
	} else {
		t.Log("the broker does not run KIP-848 consumer groups (feature group.version off); committing as an admin instead")
		k.CommitOffsets(nextGen, map[string]map[int32]int64{b: {0: 4}})
	}
	k.CommitOffsets(admin, map[string]map[int32]int64{a: {0: 1}, c: {0: 2}})
	k.CommitOffsets("x"+prefix+"-g5", map[string]map[int32]int64{a: {0: 0}})
	k.ConnectLikeMember(connect)
	k.Produce(a, 0, 2) // classic lags 2 on a; admin lags 6 on a and 4 on c
	k.Produce(b, 0, 1) // the KIP-848 group lags 1

	byID := fmt.Sprintf("group_id_regex = %q", regexp.QuoteMeta(prefix)+"-g.*")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: consumerGroupsConfig(t, byID),
				ConfigStateChecks: expectGroups(k, nil, []groupsEntry{
					{classic, "Stable", "consumer", []string{a}, 2, "classic"},
					{nextGen, nextGenState, nextGenProtocol, []string{b}, 1, nextGenType},
					{admin, "Empty", "", []string{a, c}, 10, "classic"},
					{connect, "Stable", "connect", nil, 0, "classic"},
				}),
			},
			{
				Config: consumerGroupsConfig(t, fmt.Sprintf("%s\n  topics = [%q]", byID, a)),
				ConfigStateChecks: expectGroups(k, []string{a}, []groupsEntry{
					{classic, "Stable", "consumer", []string{a}, 2, "classic"},
					{admin, "Empty", "", []string{a}, 6, "classic"},
				}),
			},
			{
				// Only the topic filter: these topics are this test's, so only its groups have commits there.
				Config: consumerGroupsConfig(t, fmt.Sprintf("topics = [%q, %q]", b, c)),
				ConfigStateChecks: expectGroups(k, []string{b, c}, []groupsEntry{
					{nextGen, nextGenState, nextGenProtocol, []string{b}, 1, nextGenType},
					{admin, "Empty", "", []string{c}, 4, "classic"},
				}),
			},
			{
				Config:      consumerGroupsConfig(t, fmt.Sprintf("topics = [%q]", prefix+"-missing")),
				ExpectError: errorLike("Topic not found", prefix+"-missing"),
			},
		},
	})
}

// The read leaves live groups as they were: state, members and commits unchanged.
func TestAccConsumerGroups_readOnly(t *testing.T) {
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	group := topic + "-group"
	k.Produce(topic, 0, 3)
	consumer := k.Consumer(group, 3, topic)
	stateBefore, membersBefore := k.DescribeGroup(group)
	_, generationBefore := consumer.GroupMetadata()
	committedBefore := fmt.Sprint(k.GroupCommitted(group))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: consumerGroupsConfig(t, fmt.Sprintf("group_id_regex = %q", regexp.QuoteMeta(group))),
			ConfigStateChecks: expectGroups(k, nil, []groupsEntry{
				{group, "Stable", "consumer", []string{topic}, 0, "classic"},
			}),
		}},
	})
	stateAfter, membersAfter := k.DescribeGroup(group)
	_, generationAfter := consumer.GroupMetadata()
	if stateAfter != stateBefore || strings.Join(membersAfter, ",") != strings.Join(membersBefore, ",") ||
		generationAfter != generationBefore || fmt.Sprint(k.GroupCommitted(group)) != committedBefore {
		t.Fatalf("the group changed: state %s -> %s, members %v -> %v, generation %d -> %d",
			stateBefore, stateAfter, membersBefore, membersAfter, generationBefore, generationAfter)
	}
}
