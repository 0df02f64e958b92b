package provider

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

func topicOffsetsConfig(t *testing.T, topic string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_topic_offsets" "test" {
  topic = %q
}
`, topic)
}

// expectTopic checks partition_count, message_count and every partition's offsets, each against
// the oracle (kadm) first.
func expectTopic(t *testing.T, k *acctest.Kafka, topic string, want [][2]int64) []statecheck.StateCheck {
	t.Helper()
	const addr = "data.kafka_topic_offsets.test"
	var (
		checks  []statecheck.StateCheck
		entries []knownvalue.Check
		total   int64
	)
	for p, w := range want {
		checks = append(checks, oracleAgrees{t: t, k: k, topic: topic, partition: int32(p), earliest: w[0], latest: w[1]})
		entries = append(entries, knownvalue.ObjectExact(withoutTieredOffsets(map[string]knownvalue.Check{
			"partition":        knownvalue.Int64Exact(int64(p)),
			"earliest_offset":  knownvalue.Int64Exact(w[0]),
			"latest_offset":    knownvalue.Int64Exact(w[1]),
			"timestamp_offset": knownvalue.Null(),
		})))
		total += w[1] - w[0]
	}
	return append(checks,
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("partition_count"), knownvalue.Int64Exact(int64(len(want)))),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("message_count"), knownvalue.Int64Exact(total)),
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("partitions"), knownvalue.ListExact(entries)),
	)
}

func TestAccTopicOffsets_partitionsExact(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 3, nil)
	k.Produce(topic, 0, 4)
	k.Produce(topic, 2, 9)
	k.DeleteRecordsBefore(topic, 2, 5)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            topicOffsetsConfig(t, topic),
				ConfigStateChecks: expectTopic(t, k, topic, [][2]int64{{0, 4}, {0, 0}, {5, 9}}),
			},
			{
				// Drained: every partition trimmed to its end.
				PreConfig: func() {
					k.DeleteRecordsBefore(topic, 0, 4)
					k.DeleteRecordsBefore(topic, 2, 9)
				},
				Config:            topicOffsetsConfig(t, topic),
				ConfigStateChecks: expectTopic(t, k, topic, [][2]int64{{4, 4}, {0, 0}, {9, 9}}),
			},
		},
	})
}

// Hundreds of partitions, read on every step and on the plan that terraform-plugin-testing runs
// after each apply: same entries, same order, so no diff.
func TestAccTopicOffsets_manyPartitionsStableOrder(t *testing.T) {
	t.Parallel()
	const n = 300
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), n, nil)
	want := make([][2]int64, n)
	for _, p := range []int32{0, 7, 150, 299} {
		k.Produce(topic, p, int(p%5)+1)
		want[p] = [2]int64{0, int64(p%5) + 1}
	}
	step := resource.TestStep{Config: topicOffsetsConfig(t, topic), ConfigStateChecks: expectTopic(t, k, topic, want)}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps:                    []resource.TestStep{step, step},
	})
}

// __consumer_offsets is live (liveOffsets): each partition's offsets lie between kadm's reads
// before and after the plan.
func TestAccTopicOffsets_internalTopic(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	k.EnsureConsumerOffsetsTopic()
	n := k.PartitionCount("__consumer_offsets")
	const addr = "data.kafka_topic_offsets.test"
	live := make([]*liveOffsets, n)
	checks := []statecheck.StateCheck{
		statecheck.ExpectKnownValue(addr, tfjsonpath.New("partition_count"), knownvalue.Int64Exact(int64(n))),
	}
	for p := range live {
		live[p] = &liveOffsets{k: k, topic: "__consumer_offsets", partition: int32(p)}
		at := tfjsonpath.New("partitions").AtSliceIndex(p)
		checks = append(checks, live[p].checks(addr, at.AtMapKey("earliest_offset"), at.AtMapKey("latest_offset"))...)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig: func() {
				for _, l := range live {
					l.Before()
				}
			},
			Config:            topicOffsetsConfig(t, "__consumer_offsets"),
			ConfigStateChecks: checks,
		}},
	})
}

// timestamp_offset per partition: the first offset at or after the time, null where no record is
// that late.
func TestAccTopicOffsets_timestamp(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 3, nil)
	base := time.Now().Add(-time.Hour).Truncate(time.Second).UTC()
	k.ProduceAt(topic, 0, base, base.Add(2*time.Minute))
	k.ProduceAt(topic, 2, base.Add(-time.Minute))
	at := base.Add(time.Minute)
	for p, want := range map[int32]int64{0: 1, 1: -1, 2: -1} {
		oracleSays{fmt.Sprintf("partition %d offset at %s", p, at), func() int64 { o, _ := k.ListOffset(topic, p, at.UnixMilli(), 0); return o }, want}.check(t)
	}
	entry := func(p, latest int64, ts knownvalue.Check) knownvalue.Check {
		return knownvalue.ObjectExact(withoutTieredOffsets(map[string]knownvalue.Check{
			"partition": knownvalue.Int64Exact(p), "earliest_offset": knownvalue.Int64Exact(0),
			"latest_offset": knownvalue.Int64Exact(latest), "timestamp_offset": ts,
		}))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_topic_offsets" "test" {
  topic           = %q
  timestamp       = %q
  isolation_level = "read_committed"
}
`, topic, at.Format(time.RFC3339)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.kafka_topic_offsets.test", tfjsonpath.New("partitions"), knownvalue.ListExact([]knownvalue.Check{
					entry(0, 2, knownvalue.Int64Exact(1)),
					entry(1, 0, knownvalue.Null()),
					entry(2, 1, knownvalue.Null()),
				})),
				statecheck.ExpectKnownValue("data.kafka_topic_offsets.test", tfjsonpath.New("message_count"), knownvalue.Int64Exact(3)),
			},
		}},
	})
}

// BenchmarkReadTopicOffsets10k is one kafka_topic_offsets read of a 10,000-partition topic through
// the provider server, as Terraform asks it (ReadDataSource): the client's requests and the
// framework's conversion of 10,000 partition objects into the state. make bench runs it; the
// Terraform-level figures beside the kadm provider are tools/bench's.
func BenchmarkReadTopicOffsets10k(b *testing.B) {
	benchmarkReadTopicOffsets10k(b, map[string]tftypes.Value{"topic": tftypes.NewValue(tftypes.String, "wide")})
}

func benchmarkReadTopicOffsets10k(b *testing.B, args map[string]tftypes.Value) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(10000, "wide"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	servers := tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{tftypes.NewValue(tftypes.String, c.ListenAddrs()[0])})
	srv, schemas := configuredServer(b, map[string]tftypes.Value{"bootstrap_servers": servers})
	config := dynamicValue(b, schemas.DataSourceSchemas["kafka_topic_offsets"], args)
	b.ReportAllocs()
	for b.Loop() {
		res, err := srv.ReadDataSource(context.Background(), &tfprotov6.ReadDataSourceRequest{TypeName: "kafka_topic_offsets", Config: config})
		if err != nil || len(res.Diagnostics) > 0 {
			b.Fatal(err, res.Diagnostics)
		}
	}
	b.StopTimer()
	if _, err := srv.StopProvider(context.Background(), &tfprotov6.StopProviderRequest{}); err != nil {
		b.Fatal(err)
	}
}
