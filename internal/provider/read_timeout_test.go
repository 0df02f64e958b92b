package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// Every data source's timeout bounds its read in place of the provider's: against a broker that
// never answers Metadata, each data source with timeout = "2s" under a provider timeout of a
// minute fails with "Kafka read timed out", naming 2s and this data source's timeout as the one
// to raise. A data source added without the argument fails here.
func TestDataSourceTimeoutBoundsItsRead(t *testing.T) {
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	// A cluster each: a Metadata request held unanswered holds kfake's every answer.
	providerConfig := func(t *testing.T) map[string]tftypes.Value {
		c := acctest.Fake(t, kfake.SeedTopics(1, "t"))
		acctest.NeverAnswer(t, c, kmsg.Metadata)
		return map[string]tftypes.Value{
			"bootstrap_servers": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{str(c.ListenAddrs()[0])}),
			"timeout":           str("1m"),
		}
	}
	configs := map[string]map[string]tftypes.Value{ // each data source's required arguments
		"kafka_partition_offsets":      {"topic": str("t"), "partition": tftypes.NewValue(tftypes.Number, 0)},
		"kafka_topic_offsets":          {"topic": str("t")},
		"kafka_consumer_group_offsets": {"group_id": str("g")},
		"kafka_topics_offsets":         {"name_regex": str("t")},
		"kafka_consumer_groups":        {},
		"kafka_topic_producers":        {"name_regex": str("t")},
		"kafka_topics_drained":         {"name_regex": str("t"), "quiet_for": str("1h")},
	}
	ctx := context.Background()
	for _, f := range New("test")().DataSources(ctx) {
		var md datasource.MetadataResponse
		f().Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "kafka"}, &md)
		config, ok := configs[md.TypeName]
		if !ok {
			t.Errorf("%s: no configuration here: add one, with its required arguments", md.TypeName)
			continue
		}
		t.Run(md.TypeName, func(t *testing.T) {
			t.Parallel()
			config["timeout"] = str("2s")
			start := time.Now()
			diags := readDataSource(t, providerConfig(t), md.TypeName, config)
			took := time.Since(start)
			if len(diags) != 1 || diags[0].Severity != tfprotov6.DiagnosticSeverityError || diags[0].Summary != "Kafka read timed out" {
				t.Fatalf("got %s; want one error, Kafka read timed out", diagText(diags))
			}
			for _, want := range []string{"within the timeout of 2s", "raise this data source's timeout"} {
				if !strings.Contains(diags[0].Detail, want) {
					t.Errorf("detail lacks %q: %s", want, diags[0].Detail)
				}
			}
			if took > 30*time.Second { // a hang check: the provider's timeout is a minute
				t.Errorf("took %s with a timeout of 2s", took)
			}
		})
	}
}

// The timeout argument is accepted beside a wait block's own timeout (each bounds its own: a
// read, the wait), and reads with it are exact.
func TestAccDataSourceTimeout(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, ""), 1, nil)
	group := topic + "-group"
	k.Produce(topic, 0, 4)
	k.CommitOffsets(group, map[string]map[int32]int64{topic: {0: 4}})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: groupConfig(t, group, `timeout = "45s"
  wait {
    enabled = true
    timeout = "2m"
  }`),
				ConfigStateChecks: expectGroup(t, k, group, "Empty", []groupEntry{{topic, 0, 4, 4}}),
			},
			{
				Config: acctest.ProviderBlock(t) + fmt.Sprintf(`
data "kafka_partition_offsets" "test" {
  topic     = %q
  partition = 0
  timeout   = "2m"
}
`, topic),
				ConfigStateChecks: expectOffsets(t, k, "data.kafka_partition_offsets.test", topic, 0, 0, 4),
			},
		},
	})
}
