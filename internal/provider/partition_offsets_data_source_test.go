package provider

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

func offsetsConfig(t *testing.T, topic string, partition int) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_partition_offsets" "test" {
  topic     = %q
  partition = %d
}
`, topic, partition)
}

// A partition nothing was ever written to reads earliest 0 and latest 0, never -1; after one
// record, 0 and 1.
func TestAccPartitionOffsets_emptyThenOneRecord(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            offsetsConfig(t, topic, 0),
				ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 0, 0),
			},
			{
				PreConfig:         func() { k.Produce(topic, 0, 1) },
				Config:            offsetsConfig(t, topic, 0),
				ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 0, 1),
			},
		},
	})
}

// DeleteRecords moves earliest and leaves latest: 8 records trimmed before 3, then before 8 (an
// empty log that keeps its end), then 2 more records and all 10 trimmed.
func TestAccPartitionOffsets_deleteRecords(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	k.Produce(topic, 0, 8)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            offsetsConfig(t, topic, 0),
				ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 0, 8),
			},
			{
				PreConfig:         func() { k.DeleteRecordsBefore(topic, 0, 3) },
				Config:            offsetsConfig(t, topic, 0),
				ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 3, 8),
			},
			{
				PreConfig:         func() { k.DeleteRecordsBefore(topic, 0, 8) },
				Config:            offsetsConfig(t, topic, 0),
				ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 8, 8),
			},
			{
				// 10 records in all, trimmed before 10: earliest meets latest.
				PreConfig: func() {
					k.Produce(topic, 0, 2)
					k.DeleteRecordsBefore(topic, 0, 4+6)
				},
				Config:            offsetsConfig(t, topic, 0),
				ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 10, 10),
			},
		},
	})
}

// 10 records trimmed before 4, then before 10, as a user reported it: 4 and 10, then 10 and 10.
func TestAccPartitionOffsets_deleteRecordsUpToTheEnd(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	k.Produce(topic, 0, 10)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig:         func() { k.DeleteRecordsBefore(topic, 0, 4) },
				Config:            offsetsConfig(t, topic, 0),
				ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 4, 10),
			},
			{
				PreConfig:         func() { k.DeleteRecordsBefore(topic, 0, 10) },
				Config:            offsetsConfig(t, topic, 0),
				ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 10, 10),
			},
		},
	})
}

func TestAccPartitionOffsets_threePartitions(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 3, nil)
	k.Produce(topic, 0, 4)
	k.Produce(topic, 2, 9)
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_partition_offsets" "p" {
  count     = 3
  topic     = %q
  partition = count.index
}
`, topic)
	var checks []statecheck.StateCheck
	for p, n := range []int64{4, 0, 9} {
		checks = append(checks, expectOffsets(t, k, fmt.Sprintf("data.kafka_partition_offsets.p[%d]", p), topic, int32(p), 0, n)...)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps:                    []resource.TestStep{{Config: config, ConfigStateChecks: checks}},
	})
}

func TestAccPartitionOffsets_topicNames(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	for _, suffix := range []string{".with.dots", "-with-dashes", "_with_underscores", ".mixed_Name-9"} {
		t.Run(suffix, func(t *testing.T) {
			topic := k.CreateTopic(acctest.TopicName(t, suffix), 1, nil)
			k.Produce(topic, 0, 2)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:            offsetsConfig(t, topic, 0),
					ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 0, 2),
				}},
			})
		})
	}
}

// 25 data sources in one configuration: all exact, all through one Kafka client per provider.
func TestAccPartitionOffsets_manyShareOneClient(t *testing.T) {
	t.Parallel()
	const n = 25
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), n, nil)
	for p := int32(0); p < n; p++ {
		k.Produce(topic, p, int(p))
	}
	k.DeleteRecordsBefore(topic, 24, 20)
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_partition_offsets" "p" {
  count     = %d
  topic     = %q
  partition = count.index
}
`, n, topic)
	var checks []statecheck.StateCheck
	for p := int32(0); p < n; p++ {
		earliest := int64(0)
		if p == 24 {
			earliest = 20
		}
		checks = append(checks, expectOffsets(t, k, fmt.Sprintf("data.kafka_partition_offsets.p[%d]", p), topic, p, earliest, int64(p))...)
	}
	counter := &clientCounter{}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: counter.factories(),
		Steps:                    []resource.TestStep{{Config: config, ConfigStateChecks: checks}},
	})
	providers, clients := counter.counts()
	if clients == 0 || clients > providers {
		t.Fatalf("%d Kafka clients for %d provider instances: want at most one per instance", clients, providers)
	}
	t.Logf("%d provider instances built %d Kafka clients for %d data sources per run", providers, clients, n)
}

func TestAccPartitionOffsets_internalTopic(t *testing.T) {
	t.Parallel()
	// __consumer_offsets exists once a group has committed; its offsets move with every commit.
	k := acctest.Connect(t)
	k.EnsureConsumerOffsetsTopic()
	live := &liveOffsets{k: k, topic: "__consumer_offsets", partition: 0}
	const addr = "data.kafka_partition_offsets.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig:         live.Before,
			Config:            offsetsConfig(t, "__consumer_offsets", 0),
			ConfigStateChecks: live.checks(addr, tfjsonpath.New("earliest_offset"), tfjsonpath.New("latest_offset")),
		}},
	})
}

// A topic that does not exist is an error that names it, and reading it does not create it: the
// cluster's topics are the same afterwards.
func TestAccPartitionOffsets_missingTopicIsNotCreated(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := "typo-topic-" + strings.TrimPrefix(acctest.TopicName(t, ""), "tfacc-")
	before := k.Topics()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      offsetsConfig(t, topic, 0),
			ExpectError: errorLike("Topic not found", `topic "`+topic+`" does not exist`, "never creates topics"),
		}},
	})
	if after := k.Topics(); !slices.Equal(before, after) || slices.Contains(after, topic) {
		t.Fatalf("the cluster's topics changed: before %v, after %v", before, after)
	}
}

// Partition 7 of a 3-partition topic is an error that names the valid range; -1 is refused while
// planning.
func TestAccPartitionOffsets_partitionOutOfRange(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 3, nil)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      offsetsConfig(t, topic, 7),
				ExpectError: errorLike("Partition out of range", "has 3 partition(s) (0 to 2); partition 7 does not exist"),
			},
			{
				Config:      offsetsConfig(t, topic, -1),
				PlanOnly:    true,
				ExpectError: errorLike("Attribute partition value must be between 0 and 2147483647, got: -1"),
			},
		},
	})
}

// A closed port and a port that accepts TCP and never answers; and a host name that does not
// resolve, under a timeout no test waits for: the read fails at once, as for a refused port.
func TestAccPartitionOffsets_unreachable(t *testing.T) {
	t.Parallel()
	closed := acctest.ClosedPort(t)
	silent := acctest.SilentListener(t)
	for _, tc := range []struct{ name, addr, timeout, want string }{
		{name: "closed port", addr: closed, timeout: "3s", want: "connection refused"},
		{name: "silent listener", addr: silent, timeout: "3s", want: "never answered the Kafka handshake"},
		{name: "HTTP server", addr: acctest.RespondingListener(t, acctest.HTTPResponse), timeout: "3s", want: "answered with HTTP"},
		{name: "unresolvable host", addr: acctest.UnresolvableHost(t, "kafka-1.invalid") + ":9092", timeout: "10m", want: "host name lookup failed (no such host)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := fmt.Sprintf(`
provider "kafka" {
  bootstrap_servers = [%q]
  timeout           = %q
}
data "kafka_partition_offsets" "test" {
  topic     = "any"
  partition = 0
}
`, tc.addr, tc.timeout)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      config,
					ExpectError: errorLike("Cannot reach the Kafka cluster", tc.addr, tc.want),
				}},
			})
		})
	}
}

// A partition's leader advertised under a host name that does not resolve here (kfake's broker 1
// advertises broker-1.invalid, as a broker behind Docker or a VPN advertises a name of its own
// network): the read fails at once with what to do, under a timeout of 10 minutes that a read
// retrying until the timeout would wait out.
func TestAccPartitionOffsets_unresolvableAdvertisedHost(t *testing.T) {
	t.Parallel()
	acctest.BootstrapServers(t) // an acceptance test: Terraform runs; the broker here is kfake
	host := acctest.UnresolvableHost(t, "broker-1.invalid")
	c := acctest.Fake(t, kfake.NumBrokers(2), kfake.SeedTopics(1, "t"), acctest.AdvertisedHost(1, host))
	if err := c.MoveTopicPartition("t", 0, 1); err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
provider "kafka" {
  bootstrap_servers = [%q]
  timeout           = "10m"
}
data "kafka_partition_offsets" "test" {
  topic     = "t"
  partition = 0
}
`, c.ListenAddrs()[0]),
			ExpectError: errorLike("Broker address does not resolve",
				fmt.Sprintf(`the cluster's metadata gives broker 1 the address %s, and the host name "broker-1.invalid" `+
					"does not resolve from this machine (no such host).", c.ListenAddrs()[1]),
				"the machine where Terraform runs cannot resolve this one",
				"set the broker's advertised.listeners to a host reachable from here, or make the name resolve here "+
					"(DNS, or the hosts file)."),
		}},
	})
}

func TestAccProvider_invalidInputFailsWhilePlanning(t *testing.T) {
	t.Parallel()
	const local = `bootstrap_servers = ["localhost:9092"]`
	for _, tc := range []struct {
		name, provider, topic, partition string
		want                             []string
	}{
		{name: "topic with a space", provider: local, topic: `"bad topic"`, partition: "0", want: []string{"Attribute topic must use only the characters a-z, A-Z, 0-9, '.', '_' and '-'", `got: bad topic`}},
		{name: "topic dot", provider: local, topic: `"."`, partition: "0", want: []string{"Attribute topic value must be none of"}},
		{name: "topic too long", provider: local, topic: `"` + strings.Repeat("a", 250) + `"`, partition: "0",
			want: []string{"Attribute topic string length must be between 1 and 249, got: 250"}},
		{name: "negative partition", provider: local, topic: `"t"`, partition: "-1", want: []string{"Attribute partition value must be between 0 and 2147483647, got: -1"}},
		{name: "comma-joined servers", provider: `bootstrap_servers = ["a:9092,b:9092"]`, topic: `"t"`, partition: "0",
			want: []string{"Invalid bootstrap server", `"a:9092,b:9092" holds several addresses joined by commas`}},
		{name: "no port", provider: `bootstrap_servers = ["localhost"]`, topic: `"t"`, partition: "0", want: []string{`"localhost" is not host:port`}},
		{name: "listener prefix", provider: `bootstrap_servers = ["PLAINTEXT://localhost:9092"]`, topic: `"t"`, partition: "0", want: []string{`drop the "PLAINTEXT://" prefix`}},
		{name: "bad port", provider: `bootstrap_servers = ["localhost:70000"]`, topic: `"t"`, partition: "0", want: []string{`has port "70000": want a number from 1 to 65535`}},
		{name: "unbracketed IPv6", provider: `bootstrap_servers = ["::1:9092"]`, topic: `"t"`, partition: "0", want: []string{"an IPv6 host goes in brackets"}},
		{name: "empty list", provider: `bootstrap_servers = []`, topic: `"t"`, partition: "0", want: []string{"Attribute bootstrap_servers list must contain at least 1"}},
		{name: "timeout without unit", provider: local + "\n  timeout = \"10\"", topic: `"t"`, partition: "0", want: []string{"Invalid duration", durationDetail10}},
		{name: "negative timeout", provider: local + "\n  timeout = \"-5s\"", topic: `"t"`, partition: "0", want: []string{"Invalid timeout", `"-5s" is not positive`}},
		{name: "tiny timeout", provider: local + "\n  timeout = \"1ns\"", topic: `"t"`, partition: "0", want: []string{"Invalid timeout", `"1ns" is shorter than 1s`}},
		{name: "null server", provider: `bootstrap_servers = ["localhost:9092", null]`, topic: `"t"`, partition: "0", want: []string{"bootstrap_servers", "null"}},
		{name: "client_id too long", provider: local + "\n  client_id = \"" + strings.Repeat("c", 32768) + "\"", topic: `"t"`, partition: "0",
			want: []string{"Attribute client_id string length must be between 1 and 32767, got: 32768"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := fmt.Sprintf("provider \"kafka\" {\n  %s\n}\ndata \"kafka_partition_offsets\" \"test\" {\n  topic = %s\n  partition = %s\n}\n",
				tc.provider, tc.topic, tc.partition)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps:                    []resource.TestStep{{Config: config, PlanOnly: true, ExpectError: errorLike(tc.want...)}},
			})
		})
	}
}

func TestAccProvider_environment(t *testing.T) {
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	k.Produce(topic, 0, 3)
	config := fmt.Sprintf(`
provider "kafka" {}
data "kafka_partition_offsets" "test" {
  topic     = %q
  partition = 0
}
`, topic)
	t.Run("bootstrap servers from KAFKA_BOOTSTRAP_SERVERS", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config:            config,
				ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 0, 3),
			}},
		})
	})
	t.Run("bad KAFKA_BOOTSTRAP_SERVERS", func(t *testing.T) {
		t.Setenv(EnvBootstrapServers, "localhost:9092,localhost")
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{{Config: config, PlanOnly: true,
				ExpectError: errorLike(`In the environment variable KAFKA_BOOTSTRAP_SERVERS: "localhost" is not host:port`)}},
		})
	})
	t.Run("no bootstrap servers at all", func(t *testing.T) {
		t.Setenv(EnvBootstrapServers, "")
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{{Config: config, PlanOnly: true,
				ExpectError: errorLike("Missing bootstrap servers", "KAFKA_BOOTSTRAP_SERVERS")}},
		})
	})
	t.Run("bad KAFKA_TIMEOUT", func(t *testing.T) {
		t.Setenv(EnvTimeout, "soon")
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{{Config: config, PlanOnly: true,
				ExpectError: errorLike(`In the environment variable KAFKA_TIMEOUT: "soon" is not a Go duration`)}},
		})
	})
}

// bootstrap_servers comes from a resource not yet created: nothing is dialled while planning, and
// the data source is read at apply.
func TestAccProvider_unknownConfiguration(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	k.Produce(topic, 0, 5)
	servers := acctest.BootstrapServers(t)[0]
	base := fmt.Sprintf(`
resource "terraform_data" "cluster" {
  input = %q
}
provider "kafka" {
  bootstrap_servers = [terraform_data.cluster.output]
}
`, servers)
	t.Run("read at apply with depends_on", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config: base + fmt.Sprintf(`
data "kafka_partition_offsets" "test" {
  topic      = %q
  partition  = 0
  depends_on = [terraform_data.cluster]
}
`, topic),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue("data.kafka_partition_offsets.test", tfjsonpath.New("latest_offset")),
				}},
				ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 0, 5),
			}},
		})
	})
	t.Run("read while planning explains", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config: base + fmt.Sprintf(`
data "kafka_partition_offsets" "test" {
  topic     = %q
  partition = 0
}
`, topic),
				ExpectError: errorLike("Provider configuration not known yet", "Add depends_on", "Nothing was dialled"),
			}},
		})
	})
}

// The 200 kafka_partition_offsets of one topic that a plan reads (10 at a time, Terraform's default
// -parallelism) share their ListOffsets requests: one request per leader and lookup (earliest, max
// timestamp, latest) carries the partitions of every read that waits, so a request holds about 10
// entries with one leader, about 10/3 with three, where a read alone would send requests of one.
// The plans run against kfake, which lets the test see each request; values are those the test
// wrote.
// Not beside other tests (no t.Parallel): how many reads share a request depends on how promptly
// Terraform's concurrent reads arrive, and 8 tests' Terraform processes on 2 cores split them (CI
// saw 2.0 entries a request with them, against 4 or more alone).
func TestAccPartitionOffsets_planSharesRequests(t *testing.T) {
	acctest.BootstrapServers(t) // an acceptance test: Terraform runs; the broker here is kfake
	// A loaded machine (the race detector, 2 cores) splits some releases: the bounds are well
	// below the ideal (10 and 3.3) and well above no sharing (1).
	for brokers, least := range map[int]int{1: 4, 3: 2} {
		t.Run(fmt.Sprintf("%d brokers", brokers), func(t *testing.T) {
			planSharesRequests(t, brokers, least)
		})
	}
}

func planSharesRequests(t *testing.T, brokers, least int) {
	c := acctest.Fake(t, kfake.NumBrokers(brokers), kfake.SeedTopics(200, "many"))
	produceFake(t, c, "many", 7, 5)
	produceFake(t, c, "many", 150, 2)
	listOffsets := acctest.ListOffsetsEntries(c)
	config := fmt.Sprintf(`
provider "kafka" {
  bootstrap_servers = [%q]
}
data "kafka_partition_offsets" "p" {
  count     = 200
  topic     = "many"
  partition = count.index
}
`, c.ListenAddrs()[0])
	offsets := func(partition int, latest int64) []statecheck.StateCheck { // nothing deleted: earliest 0
		address := fmt.Sprintf("data.kafka_partition_offsets.p[%d]", partition)
		return []statecheck.StateCheck{
			statecheck.ExpectKnownValue(address, tfjsonpath.New("earliest_offset"), knownvalue.Int64Exact(0)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("latest_offset"), knownvalue.Int64Exact(latest)),
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:            config,
			ConfigStateChecks: slices.Concat(offsets(0, 0), offsets(7, 5), offsets(150, 2), offsets(199, 0)),
		}},
	})
	requests, entries := listOffsets()
	t.Logf("%d ListOffsets requests carried %d partition entries (%.1f each)", requests, entries, float64(entries)/float64(requests))
	if requests == 0 || entries < least*requests {
		t.Errorf("%d ListOffsets requests carried %d partition entries: want at least %d a request", requests, entries, least)
	}
}

// Tests of kafka_partition_offsets' isolation_level, timestamp and max timestamp against the real
// broker; each expected number is also asked of the broker through franz-go (acctest oracle).

func isolationConfig(t *testing.T, topic, isolation string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_partition_offsets" "test" {
  topic           = %q
  partition       = 0
  isolation_level = %q
}
`, topic, isolation)
}

// Commit 2 records, abort 1, commit 1, leave 2 open: markers take offsets, so the high watermark
// is 9 and the last stable offset 7; once the open transaction commits, both are 10.
func TestAccPartitionOffsets_readCommitted(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	txn := k.Transactional(topic + "-txn")
	commit, abort := kgo.TryCommit, kgo.TryAbort
	k.Transaction(txn, topic, 0, 2, &commit)
	k.Transaction(txn, topic, 0, 1, &abort)
	k.Transaction(txn, topic, 0, 1, &commit)
	k.Transaction(txn, topic, 0, 2, nil)

	latest := func(isolation int8, want int64) resource.TestStep {
		name := map[int8]string{0: readUncommitted, 1: readCommitted}[isolation]
		return resource.TestStep{
			PreConfig: func() {
				oracleSays{name + " latest", func() int64 { o, _ := k.ListOffset(topic, 0, -1, isolation); return o }, want}.check(t)
			},
			Config: isolationConfig(t, topic, name),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.kafka_partition_offsets.test", tfjsonpath.New("earliest_offset"), knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue("data.kafka_partition_offsets.test", tfjsonpath.New("latest_offset"), knownvalue.Int64Exact(want)),
			},
		}
	}
	committed := latest(1, 10)
	committed.PreConfig = func() {
		if err := txn.EndTransaction(t.Context(), kgo.TryCommit); err != nil {
			t.Fatal(err)
		}
		// The coordinator writes the commit marker after EndTransaction returns.
		k.WaitForOffset(topic, 0, -1, 1, 10, 15*time.Second)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			latest(0, 9),
			latest(1, 7),
			committed,
			latest(0, 10),
		},
	})
}

func timestampConfig(t *testing.T, topic string, at time.Time) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_partition_offsets" "test" {
  topic     = %q
  partition = 0
  timestamp = %q
}
`, topic, at.Format(time.RFC3339Nano))
}

// Records at T, T+1m, T+2m: before T gives 0, T+30s gives 1, T+3m gives null (the broker says -1);
// after DeleteRecords before 1, before T gives 1.
func TestAccPartitionOffsets_timestamp(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	base := time.Now().Add(-time.Hour).Truncate(time.Second).UTC()
	k.ProduceAt(topic, 0, base, base.Add(time.Minute), base.Add(2*time.Minute))

	step := func(at time.Time, want knownvalue.Check, oracle int64) resource.TestStep {
		return resource.TestStep{
			PreConfig: func() {
				oracleSays{"offset at " + at.String(), func() int64 { o, _ := k.ListOffset(topic, 0, at.UnixMilli(), 0); return o }, oracle}.check(t)
			},
			Config: timestampConfig(t, topic, at),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.kafka_partition_offsets.test", tfjsonpath.New("timestamp_offset"), want),
				statecheck.ExpectKnownValue("data.kafka_partition_offsets.test", tfjsonpath.New("latest_offset"), knownvalue.Int64Exact(3)),
			},
		}
	}
	trimmed := step(base.Add(-time.Second), knownvalue.Int64Exact(1), 1)
	trimmed.PreConfig = func() {
		k.DeleteRecordsBefore(topic, 0, 1)
		oracleSays{"offset before T after trimming", func() int64 { o, _ := k.ListOffset(topic, 0, base.Add(-time.Second).UnixMilli(), 0); return o }, 1}.check(t)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			step(base.Add(-time.Second), knownvalue.Int64Exact(0), 0),
			step(base.Add(30*time.Second), knownvalue.Int64Exact(1), 1),
			step(base.Add(3*time.Minute), knownvalue.Null(), -1),
			trimmed,
		},
	})
}

// Not beside other tests (no t.Parallel) until understood: in one warm CI run, beside them on
// OpenTofu 1.12.6, max_timestamp_offset and max_timestamp came back null (every other run passed).
func TestAccPartitionOffsets_maxTimestamp(t *testing.T) {
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	base := time.Date(2026, 11, 1, 12, 0, 0, 250_000_000, time.UTC)
	check := func(latest int64, offset, ts knownvalue.Check) []statecheck.StateCheck {
		return []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.kafka_partition_offsets.test", tfjsonpath.New("latest_offset"), knownvalue.Int64Exact(latest)),
			statecheck.ExpectKnownValue("data.kafka_partition_offsets.test", tfjsonpath.New("max_timestamp_offset"), offset),
			statecheck.ExpectKnownValue("data.kafka_partition_offsets.test", tfjsonpath.New("max_timestamp"), ts),
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					oracleSays{"max timestamp offset of an empty partition", func() int64 { o, _ := k.ListOffset(topic, 0, -3, 0); return o }, -1}.check(t)
				},
				Config:            offsetsConfig(t, topic, 0),
				ConfigStateChecks: check(0, knownvalue.Null(), knownvalue.Null()),
			},
			{
				// The largest timestamp is on offset 1, not on the last record.
				PreConfig: func() {
					k.ProduceAt(topic, 0, base, base.Add(5*time.Minute), base.Add(time.Minute))
					oracleSays{"max timestamp offset", func() int64 { o, _ := k.ListOffset(topic, 0, -3, 0); return o }, 1}.check(t)
					oracleSays{"max timestamp", func() int64 { _, ts := k.ListOffset(topic, 0, -3, 0); return ts }, base.Add(5 * time.Minute).UnixMilli()}.check(t)
				},
				Config:            offsetsConfig(t, topic, 0),
				ConfigStateChecks: check(3, knownvalue.Int64Exact(1), knownvalue.StringExact("2026-11-01T12:05:00.250Z")),
			},
		},
	})
}

// A compacted topic: the log cleaner removes overwritten records, but the log start offset, and
// so earliest_offset, stays where retention left it (0 here); Apache Kafka does not move it.
func TestAccPartitionOffsets_compactedTopic(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	configs := map[string]*string{}
	for key, v := range map[string]string{
		"cleanup.policy":            "compact",
		"segment.ms":                "100",
		"min.cleanable.dirty.ratio": "0.01",
		"min.compaction.lag.ms":     "0",
		"max.compaction.lag.ms":     "100",
		"delete.retention.ms":       "0",
	} {
		configs[key] = &v
	}
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, configs)
	k.ProduceKeyed(topic, 0, "a", "b", "a", "b", "a")
	time.Sleep(200 * time.Millisecond) // let the segment age past segment.ms so the next write rolls it
	k.ProduceKeyed(topic, 0, "c")
	first := k.WaitForCompaction(topic, 0, 90*time.Second)
	t.Logf("compaction removed offsets below %d", first)

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:            offsetsConfig(t, topic, 0),
			ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 0, 6),
		}},
	})
}

// A broker older than Kafka 3.0 (kfake limited to 2.8's API versions: ListOffsets v6) cannot
// look up the max timestamp: the other offsets are still read, max_* are null, with a warning.
func TestAccPartitionOffsets_maxTimestampOnOldBroker(t *testing.T) {
	t.Parallel()
	acctest.BootstrapServers(t) // an acceptance test: Terraform runs; the broker here is kfake
	c := acctest.Fake(t, kfake.SeedTopics(1, "old"), kfake.MaxVersions(kversion.V2_8_0()))
	if err := acctest.FakeClient(t, c).ProduceSync(t.Context(), &kgo.Record{Topic: "old", Partition: 0, Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	const addr = "data.kafka_partition_offsets.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fakeOffsetsConfig(c, "old"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("earliest_offset"), knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("latest_offset"), knownvalue.Int64Exact(1)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("max_timestamp_offset"), knownvalue.Null()),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("max_timestamp"), knownvalue.Null()),
			},
		}},
	})
}

// Authenticated but not authorized: the broker's answer by Kafka's name, and what to grant. kfake
// answers ListOffsets with TOPIC_AUTHORIZATION_FAILED, as a broker with ACLs does.
func TestAccPartitionOffsets_notAuthorized(t *testing.T) {
	t.Parallel()
	acctest.BootstrapServers(t) // an acceptance test: Terraform runs; the broker here is kfake
	c := acctest.Fake(t, kfake.SeedTopics(1, "secret"))
	acctest.AnswerListOffsets(c, -1, acctest.ErrorCode(29 /* TOPIC_AUTHORIZATION_FAILED */))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fakeOffsetsConfig(c, "secret"),
			ExpectError: errorLike("Kafka broker refused the request", `for topic "secret" partition 0: broker`, "answered TOPIC_AUTHORIZATION_FAILED (error code 29)",
				`needs the ACL operation DESCRIBE on topic "secret"`),
		}},
	})
}

// fakeOffsetsConfig reads partition 0 of topic from the kfake cluster c.
func fakeOffsetsConfig(c *kfake.Cluster, topic string) string {
	return fmt.Sprintf(`
provider "kafka" {
  bootstrap_servers = [%q]
}
data "kafka_partition_offsets" "test" {
  topic     = %q
  partition = 0
}
`, c.ListenAddrs()[0], topic)
}
