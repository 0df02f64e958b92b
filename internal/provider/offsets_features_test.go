package provider

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// Tests of kafka_partition_offsets' isolation_level, timestamp and max timestamp against the real
// broker; each expected number is also asked of the broker through franz-go (acctest oracle).

// oracleSays fails the step when the broker, asked through franz-go, does not answer want.
type oracleSays struct {
	what string
	got  func() int64
	want int64
}

func (o oracleSays) check(t *testing.T) {
	t.Helper()
	if got := o.got(); got != o.want {
		t.Fatalf("oracle: %s is %d, the test expects %d", o.what, got, o.want)
	}
}

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

func TestAccPartitionOffsets_maxTimestamp(t *testing.T) {
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	base := time.Date(2026, 11, 1, 12, 0, 0, 250_000_000, time.UTC)
	check := func(offset, ts knownvalue.Check) []statecheck.StateCheck {
		return []statecheck.StateCheck{
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
				ConfigStateChecks: check(knownvalue.Null(), knownvalue.Null()),
			},
			{
				// The largest timestamp is on offset 1, not on the last record.
				PreConfig: func() {
					k.ProduceAt(topic, 0, base, base.Add(5*time.Minute), base.Add(time.Minute))
					oracleSays{"max timestamp offset", func() int64 { o, _ := k.ListOffset(topic, 0, -3, 0); return o }, 1}.check(t)
					oracleSays{"max timestamp", func() int64 { _, ts := k.ListOffset(topic, 0, -3, 0); return ts }, base.Add(5 * time.Minute).UnixMilli()}.check(t)
				},
				Config:            offsetsConfig(t, topic, 0),
				ConfigStateChecks: check(knownvalue.Int64Exact(1), knownvalue.StringExact("2026-11-01T12:05:00.250Z")),
			},
		},
	})
}

// A compacted topic: the log cleaner removes overwritten records, but the log start offset, and
// so earliest_offset, stays where retention left it (0 here); Apache Kafka does not move it.
func TestAccPartitionOffsets_compactedTopic(t *testing.T) {
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
