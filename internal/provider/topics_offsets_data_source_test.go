package provider

import (
	"fmt"
	"regexp"
	"testing"
	"time"

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
		checks      []statecheck.StateCheck
		entries     []knownvalue.Check
		counts      = map[string]knownvalue.Check{}
		withRecords = []knownvalue.Check{}
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
		counts[e.name] = knownvalue.Int64Exact(count)
		if count > 0 {
			withRecords = append(withRecords, knownvalue.StringExact(e.name))
		}
	}
	at := func(name string) tfjsonpath.Path { return tfjsonpath.New(name) }
	return append(checks,
		statecheck.ExpectKnownValue("data.kafka_topics_offsets.test", at("topics"), knownvalue.ListExact(entries)),
		// The top-level summary, which a mock can set: the same counts by name, the topics holding records.
		statecheck.ExpectKnownValue("data.kafka_topics_offsets.test", at("message_counts"), knownvalue.MapExact(counts)),
		statecheck.ExpectKnownValue("data.kafka_topics_offsets.test", at("topics_with_records"), knownvalue.ListExact(withRecords)),
		statecheck.ExpectKnownValue("data.kafka_topics_offsets.test", at("last_write_time"), knownvalue.Null()))
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

// last_write_time: the largest record timestamp of each topic, opt-in, as the broker
// answers ListOffsets -3 under read_uncommitted for each partition (kadm's view through
// acctest.ListOffset). Topic a: partition 0 holds two records stamped an hour and a minute ago,
// partition 1 none. Topic b: a record of a transaction still open, which a read_committed read
// counts as a write all the same. Without the opt-in nothing is read and both are null.
func TestAccTopicsOffsets_lastWriteTime(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	a := k.CreateTopic(acctest.TopicName(t, "-a"), 2, nil)
	b := k.CreateTopic(acctest.TopicName(t, "-b"), 1, nil)
	hourAgo := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	k.ProduceAt(a, 0, hourAgo, hourAgo.Add(59*time.Minute))
	k.Transaction(k.Transactional(b+"-txn"), b, 0, 1, nil)
	stamp := func(topic string) knownvalue.Check {
		_, ts := k.ListOffset(topic, 0, -3, 0)
		return knownvalue.StringExact(time.UnixMilli(ts).UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	}
	if _, ts := k.ListOffset(a, 0, -3, 0); ts != hourAgo.Add(59*time.Minute).UnixMilli() {
		t.Fatalf("oracle: %s/0's max timestamp %d, want the second record's", a, ts)
	}
	if _, ts := k.ListOffset(a, 1, -3, 0); ts != -1 {
		t.Fatalf("oracle: %s/1's max timestamp %d, want -1 (no record)", a, ts)
	}
	if _, open := k.ListOffset(b, 0, -3, 0); open < 0 {
		t.Fatalf("oracle: %s/0 has no max timestamp read_uncommitted", b)
	}
	if _, committedOnly := k.ListOffset(b, 0, -3, 1); committedOnly != -1 {
		t.Fatalf("oracle: %s/0's max timestamp read_committed %d, want -1 (the record is in an open transaction)", b, committedOnly)
	}
	config := func(optIn bool) string {
		return acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_topics_offsets" "both" {
  name_regex            = "%[1]s|%[2]s"
  isolation_level       = "read_committed"
  fetch_last_write_time = %[3]v
}
`, regexp.QuoteMeta(a), regexp.QuoteMeta(b), optIn)
	}
	// The top-level last write is the latest of both: b's open transaction, written after a's records.
	checks := func(wantA, wantB knownvalue.Check) []statecheck.StateCheck {
		topics, ia, ib := "data.kafka_topics_offsets.both", 0, 1 // sorted by name
		if b < a {
			ia, ib = 1, 0
		}
		return []statecheck.StateCheck{
			statecheck.ExpectKnownValue(topics, tfjsonpath.New("topics").AtSliceIndex(ia).AtMapKey("name"), knownvalue.StringExact(a)),
			statecheck.ExpectKnownValue(topics, tfjsonpath.New("topics").AtSliceIndex(ia).AtMapKey("last_write_time"), wantA),
			statecheck.ExpectKnownValue(topics, tfjsonpath.New("topics").AtSliceIndex(ib).AtMapKey("last_write_time"), wantB),
			statecheck.ExpectKnownValue(topics, tfjsonpath.New("last_write_time"), wantB),
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config(true), ConfigStateChecks: checks(stamp(a), stamp(b))},
			{Config: config(false), ConfigStateChecks: checks(knownvalue.Null(), knownvalue.Null())},
		},
	})
}

// A principal that may DESCRIBE one of two topics a pattern matches (a fresh user's
// finding): Kafka leaves the other out of Metadata, and the read would show the selection without
// it, as if it held nothing. With DESCRIBE on the cluster, the read asks each broker which topics
// it holds and fails, naming the hidden one; a pattern that matches the visible topic alone reads
// it. kadm, as a superuser, says the hidden topic holds records.
func TestAccTopicsOffsets_hiddenTopic(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	auth := acctest.Auth(t)
	prefix := acctest.TopicName(t, "")
	allowed := k.CreateTopic(prefix+".allowed", 1, nil)
	denied := k.CreateTopic(prefix+".denied", 1, nil)
	k.Produce(denied, 0, 4)
	if _, latest := k.Offsets(denied, 0); latest != 4 {
		t.Fatalf("oracle: %s/0 holds %d records; the test arranged 4", denied, latest)
	}
	user, password := k.LimitedUser(nil, []string{allowed})
	k.AllowClusterDescribe(user, password)
	config := func(pattern string) string {
		return limitedProvider(auth, user, password) + fmt.Sprintf("data \"kafka_topics_offsets\" \"test\" {\n  name_regex = %q\n}\n", pattern)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(regexp.QuoteMeta(prefix) + `\..*`),
				ExpectError: errorLike("Topics hidden from the provider's principal", "may not DESCRIBE 1 topic",
					"("+denied+")", fmt.Sprintf("Grant the provider's principal (User:%s) DESCRIBE on those topics", user),
					fmt.Sprintf("--allow-principal User:%s --operation Describe --topic", user)),
			},
			{
				Config: config(regexp.QuoteMeta(allowed)),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue("data.kafka_topics_offsets.test",
					tfjsonpath.New("message_counts"), knownvalue.MapExact(map[string]knownvalue.Check{allowed: knownvalue.Int64Exact(0)}))},
			},
		},
	})
}
