package provider

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// totalLagOracle is total_lag as expected: the sum of the positive lags, or null when the oracle
// (kadm) says an entry is behind by no lag: records without a commit, or a commit outside the log.
type totalLagOracle struct {
	k       *acctest.Kafka
	group   string
	entries []groupEntry
	total   int64
}

func (o totalLagOracle) CheckValue(v any) error {
	for _, e := range o.entries {
		if unmeasured(o.k, e.topic, int32(e.partition), e.committed, e.committed >= 0) {
			return knownvalue.Null().CheckValue(v)
		}
	}
	return knownvalue.Int64Exact(o.total).CheckValue(v)
}

func (o totalLagOracle) String() string { return "total_lag as the oracle says" }

// A real franz-go group consumer reads everything there is (5 and 3 records), commits and leaves;
// then 4 and 1 more records arrive: lag 4 and 1.
func TestAccConsumerGroupOffsets_lagAfterRealConsumer(t *testing.T) {
	t.Parallel()
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
// 2^53 comes out exact (a commit past the log end: lag 2 - (2^53 + 1), exact too).
func TestAccConsumerGroupOffsets_partialCommitsAndTopics(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	// On a cluster where no group ever committed, __consumer_offsets does not exist and the read
	// says so instead (TestAccConsumerGroupOffsets_clusterWithoutOffsetsTopic): make it exist, so
	// that the test does not depend on which tests ran before it.
	acctest.Connect(t).EnsureConsumerOffsetsTopic()
	group := strings.TrimPrefix(acctest.TopicName(t, ""), "tfacc-") + "-nobody"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      groupConfig(t, group, ""),
			ExpectError: errorLike("Consumer group not found", fmt.Sprintf("consumer group %q does not exist: its coordinator neither describes nor lists it", group)),
		}},
	})
}

// Reading a live group (a member is connected) leaves its members, generation and offsets as
// they were: the data source only sends DescribeGroups and OffsetFetch.
func TestAccConsumerGroupOffsets_readOnlyOnALiveGroup(t *testing.T) {
	t.Parallel()
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
// comes from ListGroups on the coordinator, and what its members own from ConsumerGroupDescribe. A
// live group is Stable with its exact lag, left unchanged by the read; a live group that has not
// committed yet exists (no error) and shows every partition it is assigned, uncommitted, with the
// lag unknown (total_lag null), with topics set or not.
func TestAccConsumerGroupOffsets_nextGenConsumerGroup(t *testing.T) {
	t.Parallel()
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
				ConfigStateChecks: expectGroup(t, k, fresh, "Stable", []groupEntry{{topic, 0, -1, 3}, {topic, 1, -1, 6}}),
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

// A principal that may DESCRIBE the group and one of its two topics: the group
// has read everything of the one it may see, and is 4 behind on the other, which the broker
// leaves out of OffsetFetch and Metadata. Without topics, the verdict must not claim the hidden
// one: without DESCRIBE on the cluster the read cannot tell what it does not see, with it the
// brokers' log directories show a topic it may not DESCRIBE; either way caught_up is false and
// total_lag null, with the reason first. kafka_consumer_groups says the same. Listing the hidden
// topic in topics is an error that names Kafka's code and the ACL to grant, in both data sources
// (never "Topic not found").
func TestAccConsumerGroupOffsets_limitedPrincipal(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	auth := acctest.Auth(t)
	allowed := k.CreateTopic(acctest.TopicName(t, "-allowed"), 1, nil)
	denied := k.CreateTopic(acctest.TopicName(t, "-denied"), 1, nil)
	group := allowed + "-group"
	k.Produce(allowed, 0, 5)
	k.Produce(denied, 0, 7)
	k.CommitOffsets(group, map[string]map[int32]int64{allowed: {0: 5}, denied: {0: 3}})
	if behind := k.GroupNotCaughtUp(group, false); !slices.Equal(behind, []string{denied + "/0"}) {
		t.Fatalf("oracle: the group is behind on %q, want %s/0 alone", behind, denied)
	}
	user, password := k.LimitedUser([]string{group}, []string{allowed})
	config := limitedGroupConfig(auth, user, password, group)
	const addr = "data.kafka_consumer_group_offsets.test"
	unseen := func(reason *regexp.Regexp) []statecheck.StateCheck {
		return []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("caught_up"), knownvalue.Bool(false)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("total_lag"), knownvalue.Null()),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("not_caught_up"),
				knownvalue.ListExact([]knownvalue.Check{knownvalue.StringRegexp(reason)})),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("partitions"), knownvalue.ListExact([]knownvalue.Check{
				knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"topic": knownvalue.StringExact(allowed), "committed_offset": knownvalue.Int64Exact(5),
					"lag": knownvalue.Int64Exact(0), "caught_up": knownvalue.Bool(true),
				}),
			})),
		}
	}
	groups := func(args string) string {
		return fmt.Sprintf("data \"kafka_consumer_groups\" \"readers\" {\n  %s\n}\n", args)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(""),
				ConfigStateChecks: unseen(regexp.MustCompile(`^topics not seen: cannot tell whether the provider's principal ` +
					`may DESCRIBE every topic \(broker \d+ \(\S+\) answered DescribeLogDirs with CLUSTER_AUTHORIZATION_FAILED ` +
					`\(error code 31\)\).*grant the principal DESCRIBE on the cluster$`)),
			},
			{
				PreConfig: func() { k.AllowClusterDescribe(user, password) },
				Config:    config("") + groups(fmt.Sprintf("group_id_regex = %q", regexp.QuoteMeta(group))),
				ConfigStateChecks: append(unseen(hiddenTopicsReason),
					statecheck.ExpectKnownValue("data.kafka_consumer_groups.readers", tfjsonpath.New("groups"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"group_id": knownvalue.StringExact(group), "caught_up": knownvalue.Bool(false),
							"total_lag": knownvalue.Null(), "topics": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(allowed)}),
							"not_caught_up": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringRegexp(hiddenTopicsReason)}),
						})}))),
			},
			{
				Config: config(fmt.Sprintf("topics = [%q, %q]", allowed, denied)),
				ExpectError: errorLike("Kafka broker refused the request", fmt.Sprintf("topic %q", denied),
					"TOPIC_AUTHORIZATION_FAILED (error code 29)", fmt.Sprintf("needs the ACL operation DESCRIBE on topic %q", denied)),
			},
			{
				Config: limitedProvider(auth, user, password) + groups(fmt.Sprintf("topics = [%q]", denied)),
				ExpectError: errorLike("Kafka broker refused the request", fmt.Sprintf("topic %q", denied),
					"TOPIC_AUTHORIZATION_FAILED (error code 29)", fmt.Sprintf("needs the ACL operation DESCRIBE on topic %q", denied)),
			},
		},
	})
}

// hiddenTopicsReason is the verdict's first reason where the principal may not DESCRIBE a topic
// of the cluster and the read names no topics.
var hiddenTopicsReason = regexp.MustCompile(`^topics not seen: the provider's principal may not DESCRIBE \d+ topics? ` +
	`of the cluster \(.*\), which Kafka leaves out of the read, so the group may read them unseen: set topics to the ` +
	`topics the group reads, or grant the principal DESCRIBE on those topics$`)

// Commits outside the log on a real broker: kadm commits 15 on a 10-record partition (Apache Kafka
// accepts an admin commit past the high watermark) and 2 on a partition whose log DeleteRecords
// made start at 4. lag is -5 and 8, as kafka-consumer-groups.sh shows it; total_lag is null, since
// no lag measures a commit outside the log (a sum of 8 would hide it, one of 3 cancel it); kadm
// agrees on every commit, log start and high watermark.
func TestAccConsumerGroupOffsets_commitOutsideTheLog(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 2, nil)
	group := topic + "-group"
	k.Produce(topic, 0, 10)
	k.Produce(topic, 1, 10)
	k.DeleteRecordsBefore(topic, 1, 4)
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 15, 1: 2}})

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: groupConfig(t, group, ""),
			ConfigStateChecks: append(expectGroup(t, k, group, "Empty", []groupEntry{{topic, 0, 15, 10}, {topic, 1, 2, 10}}),
				oracleAgrees{t: t, k: k, topic: topic, partition: 0, earliest: 0, latest: 10},
				oracleAgrees{t: t, k: k, topic: topic, partition: 1, earliest: 4, latest: 10},
				statecheck.ExpectKnownValue("data.kafka_consumer_group_offsets.test", tfjsonpath.New("total_lag"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.kafka_consumer_group_offsets.test",
					tfjsonpath.New("partitions").AtSliceIndex(0).AtMapKey("lag"), knownvalue.Int64Exact(-5)),
				statecheck.ExpectKnownValue("data.kafka_consumer_group_offsets.test",
					tfjsonpath.New("partitions").AtSliceIndex(1).AtMapKey("lag"), knownvalue.Int64Exact(8)),
			),
		}},
	})
}

// fakeGroupConfig reads group from the kfake cluster c.
func fakeGroupConfig(c *kfake.Cluster, group string) string {
	return fmt.Sprintf(`
provider "kafka" {
  bootstrap_servers = [%q]
}
data "kafka_consumer_group_offsets" "test" {
  group_id = %q
}
`, c.ListenAddrs()[0], group)
}

// A Kafka-protocol cluster that keeps commits without listing a __consumer_offsets topic (kfake;
// Azure Event Hubs says the same of itself): the group is read, not reported as "no consumer group
// has ever existed".
func TestAccConsumerGroupOffsets_clusterWithoutOffsetsTopic(t *testing.T) {
	t.Parallel()
	acctest.BootstrapServers(t) // an acceptance test: Terraform runs; the broker here is kfake
	c := acctest.Fake(t, kfake.SeedTopics(1, "t"))
	produceFake(t, c, "t", 0, 10)
	acctest.FakeCommit(t, c, "g", "t", 0, 7)
	const addr = "data.kafka_consumer_group_offsets.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fakeGroupConfig(c, "g"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("state"), knownvalue.StringExact("Empty")),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("total_lag"), knownvalue.Int64Exact(3)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("partitions"), knownvalue.ListExact([]knownvalue.Check{
					groupEntry{"t", 0, 7, 10}.check(),
				})),
			},
		}},
	})
}

// A broker that answers GROUP_ID_NOT_FOUND (69) for an unknown group (kfake's OffsetFetch does)
// gives the same error as Apache Kafka's offsets of -1, on group_id.
func TestAccConsumerGroupOffsets_groupIDNotFound(t *testing.T) {
	t.Parallel()
	acctest.BootstrapServers(t) // an acceptance test: Terraform runs; the broker here is kfake
	// A __consumer_offsets topic, and another group, so that the read reaches OffsetFetch.
	c := acctest.Fake(t, kfake.SeedTopics(1, "t", "__consumer_offsets"))
	acctest.FakeCommit(t, c, "other", "t", 0, 0)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fakeGroupConfig(c, "nobody"),
			ExpectError: errorLike("Consumer group not found", `group_id = "nobody"`,
				`consumer group "nobody" does not exist: OffsetFetch answered GROUP_ID_NOT_FOUND (error code 69)`),
		}},
	})
}

// The warning on commits outside the log: every partition whose commit lies outside its log is
// named, with its values and what the group's consumers will do there. kfake holds a 10-record
// partition committed at 15, one spanning 4..10 committed at 2, and one committed in range, which
// is not named.
func TestCommitOutsideTheLogWarning(t *testing.T) {
	c := acctest.Fake(t, kfake.SeedTopics(3, "t"))
	for p := int32(0); p < 3; p++ {
		produceFake(t, c, "t", p, 10)
	}
	var del kadm.Offsets
	del.Add(kadm.Offset{Topic: "t", Partition: 1, At: 4, LeaderEpoch: -1})
	if res, err := kadm.NewClient(acctest.FakeClient(t, c)).DeleteRecords(t.Context(), del); err != nil || res.Error() != nil {
		t.Fatalf("DeleteRecords: %v, %v", err, res.Error())
	}
	acctest.FakeCommit(t, c, "g", "t", 0, 15)
	acctest.FakeCommit(t, c, "g", "t", 1, 2)
	acctest.FakeCommit(t, c, "g", "t", 2, 9)
	cl, err := kafkaclient.New(kafkaclient.Config{BootstrapServers: c.ListenAddrs(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	res, err := cl.GroupOffsets(t.Context(), kafkaclient.GroupOffsetsRequest{GroupID: "g"})
	if err != nil {
		t.Fatal(err)
	}

	var diags diag.Diagnostics
	addOutOfRangeWarning(&diags, "g", res.Partitions)
	want := `Consumer group "g" has committed offsets outside the range [earliest, latest] of 2 partition(s):
- topic "t" partition 0: committed offset 15 is past the log end (the log spans offsets 0 to 10); lag -5
- topic "t" partition 1: committed offset 2 is before the log start (the log spans offsets 4 to 10); lag 8

A consumer of the group that resumes there is answered OFFSET_OUT_OF_RANGE and resets per its ` +
		`auto.offset.reset (earliest: from the log start; latest: from the log end; none: it fails) instead of ` +
		`reading on from its commit, so records may be read again or skipped. A commit past the log end remains ` +
		`after a topic is deleted and recreated under the same name, or after an unclean leader election. Such ` +
		`a commit is not progress: caught_up is false, and a gate on caught_up blocks.`
	if len(diags) != 1 || diags[0].Severity() != diag.SeverityWarning ||
		diags[0].Summary() != "Committed offset outside the log" || diags[0].Detail() != want {
		t.Fatalf("got %v\nwant one warning \"Committed offset outside the log\":\n%s", diags, want)
	}

	diags = nil
	addOutOfRangeWarning(&diags, "g", res.Partitions[2:])
	if len(diags) != 0 {
		t.Fatalf("a commit in range warned: %v", diags)
	}
}

// On Apache Kafka a cluster where no group has ever existed has no __consumer_offsets topic, and
// FindCoordinator for a group would make the broker create it. On a broker of its own, which no
// other test has touched, a group read answers "not found" from ListGroups and Metadata alone, and
// the cluster's topics (kadm, internal ones included) are the same afterwards.
func TestAccConsumerGroupOffsets_createsNothingOnAClusterWithoutGroups(t *testing.T) {
	t.Parallel()
	addr := acctest.FreshBroker(t)
	k := acctest.ConnectTo(t, addr)
	before := k.Topics()
	if slices.Contains(before, "__consumer_offsets") {
		t.Fatalf("the fresh broker already has __consumer_offsets: %v", before)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
provider "kafka" {
  bootstrap_servers = [%q]
}
data "kafka_consumer_group_offsets" "test" {
  group_id = "g"
}
`, addr),
			ExpectError: errorLike("Consumer group not found", `group_id = "g"`,
				`consumer group "g" does not exist: no broker lists it (ListGroups), and the cluster has no __consumer_offsets topic`),
		}},
	})
	if after := k.Topics(); !slices.Equal(before, after) {
		t.Fatalf("the read changed the cluster's topics: %v -> %v", before, after)
	}
}

// A group below the last stable offset counts to the high watermark, as kafka-consumer-groups.sh
// counts LAG. One partition: offsets 0-4 plain records, 5-6 a transaction left open, 7-9 plain
// records written while it is (last stable offset 5, high watermark 10). Under read_committed a
// group committed at 3 has lag 2 to the last stable offset and 5 offsets held behind the
// transaction: total_lag 7, not 2, and its reason names both; one committed at 5 is 5 behind. kadm
// gives the high watermark (ListEndOffsets), the last stable offset and each commit;
// kafka_consumer_groups says the same.
func TestAccConsumerGroupOffsets_readCommittedBelowTheLastStableOffset(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	k.Produce(topic, 0, 5)
	k.Transaction(k.Transactional(topic+"-txn"), topic, 0, 2, nil) // left open until the test ends
	k.Produce(topic, 0, 3)
	below, at := topic+"-gd", topic+"-ga"
	k.CommitOffsets(below, map[string]map[int32]int64{topic: {0: 3}})
	k.CommitOffsets(at, map[string]map[int32]int64{topic: {0: 5}})
	if _, highWatermark := k.Offsets(topic, 0); highWatermark != 10 {
		t.Fatalf("oracle: high watermark %d, the test arranged 10", highWatermark)
	}
	if stable, _ := k.ListOffset(topic, 0, -1, 1); stable != 5 {
		t.Fatalf("oracle: last stable offset %d, the test arranged 5", stable)
	}
	lagBelow, lagAt := k.GroupLag(below, topic), k.GroupLag(at, topic) // high watermark − commit
	if lagBelow != 7 || lagAt != 5 {
		t.Fatalf("oracle: LAG %d and %d, the test arranged 7 and 5", lagBelow, lagAt)
	}
	reason := regexp.MustCompile(`^` + regexp.QuoteMeta(topic+"/0: lag 2 (committed_offset 3, latest_offset 5), and "+
		"offsets 5 to 9 wait behind an open transaction (last stable offset 5, high watermark 10): read_committed "+
		"consumers get them once it commits or aborts, and kafka-consumer-groups.sh counts LAG 7 to the high watermark") + `$`)
	const addr = "data.kafka_consumer_group_offsets.test"
	config := groupConfig(t, below, fmt.Sprintf("topics = [%q]\n  isolation_level = \"read_committed\"", topic)) +
		fmt.Sprintf(`
data "kafka_consumer_groups" "test" {
  group_id_regex  = %q
  isolation_level = "read_committed"
}
`, regexp.QuoteMeta(topic)+"-g[ad]")
	groupEntry := func(id string, lag int64) knownvalue.Check {
		return knownvalue.ObjectPartial(map[string]knownvalue.Check{"group_id": knownvalue.StringExact(id),
			"total_lag": knownvalue.Int64Exact(lag), "caught_up": knownvalue.Bool(false)})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("total_lag"), knownvalue.Int64Exact(lagBelow)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("caught_up"), knownvalue.Bool(false)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("not_caught_up"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.StringRegexp(reason)})),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("partitions"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"committed_offset": knownvalue.Int64Exact(3), "latest_offset": knownvalue.Int64Exact(5),
						"lag": knownvalue.Int64Exact(2), "caught_up": knownvalue.Bool(false),
					}),
				})),
				statecheck.ExpectKnownValue("data.kafka_consumer_groups.test", tfjsonpath.New("groups"),
					knownvalue.ListExact([]knownvalue.Check{groupEntry(at, lagAt), groupEntry(below, lagBelow)})),
			},
		}},
	})
}
