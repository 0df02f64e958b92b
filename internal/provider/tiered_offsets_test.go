package provider

import (
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// Tests of tiered_offsets (KIP-405): on any broker, a topic without remote storage; on the broker
// with tiered storage (make testtiered: TestAccTieredStorage*), one whose closed segments have left
// local disk. Expected values are checked against Kafka's own kafka-get-offsets.sh first.

// toolSays fails the test unless kafka-get-offsets.sh --time at prints want (nil: no offset), and
// returns the value the provider must show for it. For a special timestamp (-3 to -6) that the
// brokers' ApiVersions answer says they are too old for (ListOffsets below the version Kafka added
// it in), the tool is not asked (such a broker reads it as an ordinary timestamp) and the provider
// must show null, as it documents.
func toolSays(t *testing.T, k *acctest.Kafka, topic string, at int64, want *int64) knownvalue.Check {
	t.Helper()
	if need := acctest.ListOffsetsVersionFor(at); need > 0 && k.ListOffsetsVersion() < need {
		t.Logf("--time %d needs ListOffsets v%d; the brokers serve up to v%d: null", at, need, k.ListOffsetsVersion())
		return knownvalue.Null()
	}
	got := acctest.GetOffsetShell(t, topic, 0, at)
	if got.Unsupported || show(got.Offset) != show(want) {
		t.Fatalf("kafka-get-offsets --time %d printed %s (unsupported: %v), the test expects %s", at, show(got.Offset), got.Unsupported, show(want))
	}
	if want == nil {
		return knownvalue.Null()
	}
	return knownvalue.Int64Exact(*want)
}

// partition0 is kafka_topic_offsets' entry for partition 0.
func partition0(earliest, latest, atTime, local, tiered, pending knownvalue.Check) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"partition": knownvalue.Int64Exact(0), "earliest_offset": earliest, "latest_offset": latest, "timestamp_offset": atTime,
		"earliest_local_offset": local, "latest_tiered_offset": tiered, "earliest_pending_upload_offset": pending,
	})
}

func show(p *int64) string {
	if p == nil {
		return "nothing"
	}
	return fmt.Sprint(*p)
}

func ptr(v int64) *int64 { return &v }

// A topic without remote storage, records 0 to 4, DeleteRecords before 2: every record is
// local, so earliest_local_offset is earliest_offset (2), and nothing is tiered (the broker
// answers -1 for -5 and -6). A broker too old for one of them (ListOffsets in its ApiVersions
// answer: -4 from Kafka 3.5, -5 from 3.9, -6 from 4.2) is not asked it, and that attribute is
// null. Without tiered_offsets the three are null.
func TestAccPartitionOffsets_tieredOffsetsPlainTopic(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	k.Produce(topic, 0, 5)
	k.DeleteRecordsBefore(topic, 0, 2)
	local := toolSays(t, k, topic, -4, ptr(2))
	tiered := toolSays(t, k, topic, -5, nil)
	pending := toolSays(t, k, topic, -6, nil)

	const asked, plain = "data.kafka_partition_offsets.tiered", "data.kafka_partition_offsets.plain"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_partition_offsets" "tiered" {
  topic          = %[1]q
  partition      = 0
  tiered_offsets = true
}
data "kafka_partition_offsets" "plain" {
  topic     = %[1]q
  partition = 0
}
data "kafka_topic_offsets" "tiered" {
  topic          = %[1]q
  tiered_offsets = true
}
`, topic),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(asked, tfjsonpath.New("earliest_offset"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue(asked, tfjsonpath.New("earliest_local_offset"), local),
				statecheck.ExpectKnownValue(asked, tfjsonpath.New("latest_tiered_offset"), tiered),
				statecheck.ExpectKnownValue(asked, tfjsonpath.New("earliest_pending_upload_offset"), pending),
				statecheck.ExpectKnownValue(plain, tfjsonpath.New("earliest_local_offset"), knownvalue.Null()),
				statecheck.ExpectKnownValue(plain, tfjsonpath.New("latest_tiered_offset"), knownvalue.Null()),
				statecheck.ExpectKnownValue(plain, tfjsonpath.New("earliest_pending_upload_offset"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.kafka_topic_offsets.tiered", tfjsonpath.New("partitions"), knownvalue.ListExact(
					[]knownvalue.Check{partition0(knownvalue.Int64Exact(2), knownvalue.Int64Exact(5), knownvalue.Null(), local, tiered, pending)})),
			},
		}},
	})
}

// listOffsetsTimestamps counts the ListOffsets requests c receives by the timestamp they ask.
func listOffsetsTimestamps(c *kfake.Cluster) func() map[int64]int {
	var mu sync.Mutex
	counts := map[int64]int{}
	c.ControlKey(int16(kmsg.ListOffsets), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if req, ok := r.(*kmsg.ListOffsetsRequest); ok && len(req.Topics) > 0 {
			mu.Lock()
			counts[req.Topics[0].Partitions[0].Timestamp]++
			mu.Unlock()
		}
		return nil, nil, false
	})
	return func() map[int64]int {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(counts)
	}
}

// No request for the tiered offsets unless tiered_offsets is true: without it both data sources
// ask what they asked before (earliest, max timestamp, latest); with it, -4 and -5 too (kfake
// serves ListOffsets up to v10, so never -6, v11).
func TestAccTopicOffsets_tieredOffsetsAskedOnlyWhenSet(t *testing.T) {
	t.Parallel()
	acctest.BootstrapServers(t) // an acceptance test: Terraform runs; the broker here is kfake
	for _, tc := range []struct {
		name   string
		set    string
		asked  []int64
		absent []int64
	}{
		{name: "unset", asked: []int64{-2, -3, -1}, absent: []int64{-4, -5, -6}},
		{name: "false", set: "tiered_offsets = false", asked: []int64{-2, -3, -1}, absent: []int64{-4, -5, -6}},
		{name: "true", set: "tiered_offsets = true", asked: []int64{-2, -3, -1, -4, -5}, absent: []int64{-6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := acctest.Fake(t, kfake.SeedTopics(2, "t"))
			asked := listOffsetsTimestamps(c)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps: []resource.TestStep{{Config: fmt.Sprintf(`
provider "kafka" {
  bootstrap_servers = [%q]
}
data "kafka_partition_offsets" "p" {
  topic     = "t"
  partition = 1
  %[2]s
}
data "kafka_topic_offsets" "t" {
  topic = "t"
  %[2]s
}
`, c.ListenAddrs()[0], tc.set)}},
			})
			counts := asked()
			for _, ts := range tc.asked {
				if counts[ts] == 0 {
					t.Errorf("no ListOffsets request for timestamp %d; requests by timestamp: %v", ts, counts)
				}
			}
			for _, ts := range tc.absent {
				if counts[ts] != 0 {
					t.Errorf("%d ListOffsets requests for timestamp %d; requests by timestamp: %v", counts[ts], ts, counts)
				}
			}
		})
	}
}

// A topic with remote storage, 100 records in three segments, local.retention.bytes=1. Once the
// broker has copied the two closed segments (offsets 0 to 91) to remote storage and deleted them
// locally, only the active segment (92 to 99) is local: earliest local 92, latest tiered 91,
// earliest pending upload 92 (Kafka 4.2+; null on 3.9, not asked), earliest still 0. Kafka's
// max-timestamp lookup scans local segments only (KAFKA-17552), so max_timestamp_offset is null:
// here the broker's answer (99) happens to be right, since a segment rolls by time only for a later
// record, but nothing in ListOffsets tells the cases apart. A lookup by time in the remote segment
// answers from remote storage (ListOffsets v10+ carries its timeout).
func TestAccTieredStorage_closedSegmentsOnlyRemote(t *testing.T) {
	k := acctest.Connect(t)
	k.RequireTieredStorage()
	configs := map[string]*string{}
	for key, v := range map[string]string{
		"remote.storage.enable": "true",
		"local.retention.bytes": "1",     // every segment copied to remote storage is deleted locally
		"segment.ms":            "60000", // each batch, 2 minutes later than the one before, rolls a segment
	} {
		configs[key] = &v
	}
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, configs)
	base := time.Now().Add(-2 * time.Hour).Truncate(time.Millisecond)
	times := func(n int, from time.Time) []time.Time {
		ts := make([]time.Time, n)
		for i := range ts {
			ts[i] = from.Add(time.Duration(i) * time.Second)
		}
		return ts
	}
	k.ProduceBatch(topic, 0, "none", times(46, base)...)                    // offsets 0-45
	k.ProduceBatch(topic, 0, "none", times(46, base.Add(2*time.Minute))...) // 46-91
	if first := k.ProduceBatch(topic, 0, "none", times(8, base.Add(4*time.Minute))...); first != 92 {
		t.Fatalf("the last batch starts at offset %d, want 92", first)
	}
	k.WaitForTiering(topic, 0, 92, 2*time.Minute)

	at := base.Add(10 * time.Second) // offset 10, in remote storage only
	earliest := toolSays(t, k, topic, -2, ptr(0))
	local := toolSays(t, k, topic, -4, ptr(92))
	tiered := toolSays(t, k, topic, -5, ptr(91))
	pending := toolSays(t, k, topic, -6, ptr(92)) // null on Kafka 3.9: ListOffsets v11 is 4.2's
	atTime := toolSays(t, k, topic, at.UnixMilli(), ptr(10))
	toolSays(t, k, topic, -3, ptr(99))

	const part, whole = "data.kafka_partition_offsets.test", "data.kafka_topic_offsets.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_partition_offsets" "test" {
  topic          = %[1]q
  partition      = 0
  timestamp      = %[2]q
  tiered_offsets = true
}
data "kafka_topic_offsets" "test" {
  topic          = %[1]q
  timestamp      = %[2]q
  tiered_offsets = true
}
`, topic, at.UTC().Format(time.RFC3339Nano)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(part, tfjsonpath.New("earliest_offset"), earliest),
				statecheck.ExpectKnownValue(part, tfjsonpath.New("latest_offset"), knownvalue.Int64Exact(100)),
				statecheck.ExpectKnownValue(part, tfjsonpath.New("earliest_local_offset"), local),
				statecheck.ExpectKnownValue(part, tfjsonpath.New("latest_tiered_offset"), tiered),
				statecheck.ExpectKnownValue(part, tfjsonpath.New("earliest_pending_upload_offset"), pending),
				statecheck.ExpectKnownValue(part, tfjsonpath.New("timestamp_offset"), atTime),
				statecheck.ExpectKnownValue(part, tfjsonpath.New("max_timestamp_offset"), knownvalue.Null()),
				statecheck.ExpectKnownValue(part, tfjsonpath.New("max_timestamp"), knownvalue.Null()),
				statecheck.ExpectKnownValue(whole, tfjsonpath.New("partitions"), knownvalue.ListExact(
					[]knownvalue.Check{partition0(earliest, knownvalue.Int64Exact(100), atTime, local, tiered, pending)})),
			},
		}},
	})
}

// The warning where max_timestamp_offset is dropped names the topic, the partition and the
// offsets in remote storage only; none where nothing was dropped.
func TestMaxTimestampLocalOnlyWarning(t *testing.T) {
	var diags diag.Diagnostics
	addMaxTimestampLocalOnlyWarning(&diags, "orders", kafkaclient.PartitionOffsets{Partition: 3, Earliest: 0, Latest: 100, EarliestLocal: ptr(92)})
	if len(diags) != 0 {
		t.Fatalf("nothing dropped: got %v, want no diagnostic", diags)
	}
	addMaxTimestampLocalOnlyWarning(&diags, "orders", kafkaclient.PartitionOffsets{Partition: 3, Earliest: 0, Latest: 100,
		EarliestLocal: ptr(92), MaxTimestampLocalOnly: true})
	want := `Topic "orders" partition 3 holds offsets 0 to 91 in remote storage only`
	if len(diags) != 1 || diags[0].Severity() != diag.SeverityWarning || !strings.HasPrefix(diags[0].Detail(), want) {
		t.Fatalf("got %v, want one warning starting %q", diags, want)
	}
	if d, ok := diags[0].(diag.DiagnosticWithPath); !ok || !d.Path().Equal(path.Root("max_timestamp_offset")) {
		t.Fatalf("got %v, want it on max_timestamp_offset", diags[0])
	}
}
