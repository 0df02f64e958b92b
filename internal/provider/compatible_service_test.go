package provider

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/broker"
)

// Brokers that are not Apache Kafka: a kfake that answers as a Kafka-compatible service did that
// implements the protocol itself (acctest.FakeCompatibleService, as Tansu 0.6.0: it advertises
// ListOffsets v9 and closes the connection at timestamps -3, -4 and -5, and lists no
// DescribeProducers), read through Terraform with the provider's timeout at 30s. The read's cost
// is asserted in requests, not time: a read that retried until its timeout would send hundreds.

// compatibleConfig is a provider at c with a 30s timeout, and body.
func compatibleConfig(c *kfake.Cluster, body string) string {
	return fmt.Sprintf(`
provider "kafka" {
  bootstrap_servers = [%q]
  timeout           = "30s"
}
%s`, c.ListenAddrs()[0], body)
}

// Earliest and latest are read wherever the broker answers them: the lookups it refuses leave
// their attributes null (with a warning: TestCompatibleServiceWarnsOfRefusedLookups), each
// refused after broker.RefusedAfter closes, never asked again in the plan.
func TestAccCompatibleService_offsetsWithoutRefusedLookups(t *testing.T) {
	t.Parallel()
	acctest.BootstrapServers(t) // an acceptance test: Terraform runs; the broker here is kfake
	c, closed := acctest.FakeCompatibleService(t, kfake.SeedTopics(2, "t"))
	produceFake(t, c, "t", 0, 5)
	produceFake(t, c, "t", 1, 2)
	const (
		partition = "data.kafka_partition_offsets.test"
		topic     = "data.kafka_topic_offsets.test"
	)
	part := func(p int, latest int64) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{"partition": knownvalue.Int64Exact(int64(p)),
			"earliest_offset": knownvalue.Int64Exact(0), "latest_offset": knownvalue.Int64Exact(latest),
			"timestamp_offset": knownvalue.Null(), "earliest_local_offset": knownvalue.Null(),
			"latest_tiered_offset": knownvalue.Null(), "earliest_pending_upload_offset": knownvalue.Null()})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: compatibleConfig(c, `
data "kafka_partition_offsets" "test" {
  topic          = "t"
  partition      = 0
  tiered_offsets = true
}
data "kafka_topic_offsets" "test" {
  topic          = "t"
  tiered_offsets = true
}
`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(partition, tfjsonpath.New("earliest_offset"), knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue(partition, tfjsonpath.New("latest_offset"), knownvalue.Int64Exact(5)),
				statecheck.ExpectKnownValue(partition, tfjsonpath.New("max_timestamp_offset"), knownvalue.Null()),
				statecheck.ExpectKnownValue(partition, tfjsonpath.New("max_timestamp"), knownvalue.Null()),
				statecheck.ExpectKnownValue(partition, tfjsonpath.New("earliest_local_offset"), knownvalue.Null()),
				statecheck.ExpectKnownValue(partition, tfjsonpath.New("latest_tiered_offset"), knownvalue.Null()),
				statecheck.ExpectKnownValue(partition, tfjsonpath.New("earliest_pending_upload_offset"), knownvalue.Null()),
				statecheck.ExpectKnownValue(topic, tfjsonpath.New("message_count"), knownvalue.Int64Exact(7)),
				statecheck.ExpectKnownValue(topic, tfjsonpath.New("partitions"), knownvalue.ListExact([]knownvalue.Check{part(0, 5), part(1, 2)})),
			},
		}},
	})
	// Each plan (terraform plan, then the refresh of apply, each a provider process of its own)
	// learns the three refusals anew: RefusedAfter closes each, whatever the data sources.
	if n := closed(); n == 0 || n%(3*broker.RefusedAfter) != 0 || n > 4*3*broker.RefusedAfter {
		t.Errorf("the broker closed %d connections; want %d per provider process (%d for each of the three refused lookups)",
			n, 3*broker.RefusedAfter, broker.RefusedAfter)
	}
}

// kafka_topic_producers fails at once where a broker does not serve what it needs: without
// DescribeProducers in ApiVersions, before any ListOffsets; where the broker refuses ListOffsets
// -3, after broker.RefusedAfter closes, naming the request. Neither error advises an ACL or a
// longer timeout.
func TestAccCompatibleService_topicProducersFailsAtOnce(t *testing.T) {
	t.Parallel()
	acctest.BootstrapServers(t) // an acceptance test: Terraform runs; the broker here is kfake
	const read = `
data "kafka_topic_producers" "test" {
  topics = ["t"]
}
`
	t.Run("without DescribeProducers", func(t *testing.T) {
		t.Parallel()
		c, closed := acctest.FakeCompatibleService(t, kfake.SeedTopics(1, "t"))
		listOffsets := acctest.CountRequestsByBroker(c, kmsg.ListOffsets.Int16())
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config: compatibleConfig(c, read),
				ExpectError: errorLike("Unsupported by this broker", "DescribeProducers: the DescribeProducers API (API key 61, KIP-664) on broker 0",
					"is unsupported by this broker"),
			}},
		})
		if n := listOffsets()[0]; n != 0 || closed() != 0 {
			t.Errorf("sent %d ListOffsets requests (%d closed) before failing; want none", n, closed())
		}
	})
	t.Run("refusing ListOffsets -3", func(t *testing.T) {
		t.Parallel()
		c := acctest.Fake(t, kfake.SeedTopics(1, "t"))
		closed := acctest.CloseAtListOffsets(c, -3)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config: compatibleConfig(c, read),
				ExpectError: errorLike("Refused by this broker", "ListOffsets (max timestamp, read_uncommitted)",
					"closed the connection at ListOffsets v", "(timestamp -3), before any answer, on 3 new connections in a row",
					"Neither an ACL nor a longer timeout changes that"),
			}},
		})
		if n := closed(); n != broker.RefusedAfter {
			t.Errorf("the broker closed %d connections; want %d: the read gave up at the refusal, not at its timeout", n, broker.RefusedAfter)
		}
	})
}

// The diagnostics themselves, read without Terraform: kafka_partition_offsets warns of each
// refused lookup on its attribute, naming the request; kafka_topic_producers' error says what was
// refused. Neither advises an ACL or a longer timeout, and each read ends well within its 30s
// timeout.
func TestCompatibleServiceWarnsOfRefusedLookups(t *testing.T) {
	t.Parallel()
	c, _ := acctest.FakeCompatibleService(t, kfake.SeedTopics(1, "t"))
	produceFake(t, c, "t", 0, 5)
	providerConfig := map[string]tftypes.Value{
		"bootstrap_servers": tftypes.NewValue(tftypes.List{ElementType: tftypes.String},
			[]tftypes.Value{tftypes.NewValue(tftypes.String, c.ListenAddrs()[0])}),
		"timeout": tftypes.NewValue(tftypes.String, "30s"),
	}
	start := time.Now()
	diags := readDataSource(t, providerConfig, "kafka_partition_offsets", map[string]tftypes.Value{
		"topic": tftypes.NewValue(tftypes.String, "t"), "partition": tftypes.NewValue(tftypes.Number, 0),
		"tiered_offsets": tftypes.NewValue(tftypes.Bool, true),
	})
	want := map[string]string{
		"max_timestamp_offset": "ListOffsets v9 (timestamp -3)", "earliest_local_offset": "ListOffsets v9 (timestamp -4)",
		"latest_tiered_offset": "ListOffsets v9 (timestamp -5)",
	}
	if len(diags) != len(want) {
		t.Fatalf("got %s; want a warning for each of the three refused lookups", diagText(diags))
	}
	for _, d := range diags {
		var attr tftypes.AttributeName
		if d.Attribute != nil && len(d.Attribute.Steps()) == 1 {
			attr, _ = d.Attribute.Steps()[0].(tftypes.AttributeName)
		}
		if d.Severity != tfprotov6.DiagnosticSeverityWarning || d.Summary != "Refused by this broker" || want[string(attr)] == "" ||
			!strings.Contains(d.Detail, want[string(attr)]) || !strings.Contains(d.Detail, "the other offsets were read") {
			t.Errorf("got %s on %q", diagText([]*tfprotov6.Diagnostic{d}), attr)
		}
	}
	diags = readDataSource(t, providerConfig, "kafka_topic_producers", map[string]tftypes.Value{
		"topics": tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, []tftypes.Value{tftypes.NewValue(tftypes.String, "t")}),
	})
	if len(diags) != 1 || diags[0].Severity != tfprotov6.DiagnosticSeverityError || !strings.Contains(diags[0].Detail, "DescribeProducers") {
		t.Fatalf("got %s; want one error naming DescribeProducers", diagText(diags))
	}
	for _, advice := range []string{"raise the provider's timeout", "Grant", "grant"} {
		if strings.Contains(diagText(diags), advice) {
			t.Errorf("advises %q: %s", advice, diagText(diags))
		}
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("two reads took %s; want well within one 30s timeout", took)
	}
}

// "Topics not seen" advises DESCRIBE on the cluster only where that lets the brokers say which
// topics they hold: not where a broker does not serve DescribeLogDirs at all.
func TestTopicsUnseenAdviceOnlyWhereAnACLHelps(t *testing.T) {
	t.Parallel()
	c, _ := acctest.FakeCompatibleService(t, kfake.SeedTopics(1, "t"))
	diags := readDataSource(t, map[string]tftypes.Value{
		"bootstrap_servers": tftypes.NewValue(tftypes.List{ElementType: tftypes.String},
			[]tftypes.Value{tftypes.NewValue(tftypes.String, c.ListenAddrs()[0])}),
	}, "kafka_topics_offsets", map[string]tftypes.Value{"name_regex": tftypes.NewValue(tftypes.String, "t")})
	if len(diags) != 1 || diags[0].Summary != "Cannot tell whether topics are hidden" ||
		!strings.Contains(diags[0].Detail, "does not serve DescribeLogDirs, which no ACL changes") ||
		!strings.Contains(diags[0].Detail, "name the topics instead") || strings.Contains(diags[0].Detail, "Grant") {
		t.Fatalf("got %s; want the warning, advising to name the topics, not an ACL", diagText(diags))
	}

	var refused diag.Diagnostics
	warnTopicsUnseen(&refused, "broker 1 (b:9092) answered DescribeLogDirs with CLUSTER_AUTHORIZATION_FAILED (error code 31)", "topics")
	if len(refused) != 1 || !strings.Contains(refused[0].Detail(), "Grant the principal DESCRIBE on the cluster") {
		t.Fatalf("got %v; want the warning advising DESCRIBE on the cluster", refused)
	}
}
