package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

var _ datasource.DataSourceWithConfigure = &TopicOffsetsDataSource{}

// TopicOffsetsDataSource is kafka_topic_offsets: the offsets of every partition of a topic.
type TopicOffsetsDataSource struct {
	data *providerData
}

// NewTopicOffsetsDataSource is registered in KafkaProvider.DataSources.
func NewTopicOffsetsDataSource() datasource.DataSource { return &TopicOffsetsDataSource{} }

// topicPartitionType is the Terraform type of an entry of partitions.
var topicPartitionType = nestedObjectType(topicPartitionObject)

// topicOffsetsErrorAttrs: the attributes its read errors point at (addReadError).
var topicOffsetsErrorAttrs = readErrorAttrs{topic: path.Root("topic")}

// topicPartitionAttrs is one entry of partitions.
func topicPartitionAttrs(p kafkaclient.PartitionOffsets) tfAttrs {
	return addTieredOffsets(tfAttrs{
		"partition":        tfInt64(int64(p.Partition)),
		"earliest_offset":  tfInt64(p.Earliest),
		"latest_offset":    tfInt64(p.Latest),
		"timestamp_offset": tfInt64OrNull(p.TimestampOffset),
	}, p)
}

// topicPartitionObject is the schema of one entry of partitions, and so its element type.
var topicPartitionObject = schema.NestedAttributeObject{Attributes: withTieredOffsets(map[string]schema.Attribute{
	"partition": schema.Int64Attribute{Computed: true, MarkdownDescription: "Partition number."},
	"earliest_offset": schema.Int64Attribute{Computed: true, MarkdownDescription: "The log start " +
		"offset (ListOffsets timestamp -2)."},
	"latest_offset": schema.Int64Attribute{Computed: true, MarkdownDescription: "The high watermark, " +
		"or under `read_committed` the last stable offset (ListOffsets timestamp -1)."},
	"timestamp_offset": schema.Int64Attribute{Computed: true, MarkdownDescription: "With " +
		"`timestamp` set, the first offset whose record timestamp is at or after it; `null` when " +
		"no record is that late (a consumer would start at `latest_offset`) or without `timestamp`."},
})}

func (d *TopicOffsetsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_topic_offsets"
}

func (d *TopicOffsetsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The earliest and latest offsets of every partition of a topic, and its message " +
			"count, read with Kafka's Metadata and ListOffsets APIs.",
		Attributes: map[string]schema.Attribute{
			"timeout": readTimeoutAttribute(""),
			"topic":   topicAttribute(),
			"allow_missing": allowMissingAttribute("topic", "`partition_count` 0, `partitions` empty and "+
				"`message_count` `null`, so that a gate on `message_count == 0` does not read a deleted topic as drained."),
			"exists":          existsAttribute("topic"),
			"isolation_level": isolationLevelAttribute(),
			"timestamp":       timestampAttribute(),
			"tiered_offsets":  tieredOffsetsAttribute(),
			"partition_count": partitionCountAttribute(),
			"message_count": schema.Int64Attribute{
				Computed: true,
				MarkdownDescription: "The sum over partitions of `latest_offset - earliest_offset`. Exact only for " +
					"topics that are neither compacted nor transactional; otherwise an upper bound, since " +
					"compaction leaves gaps and transaction markers take offsets. 0 exactly when the topic is " +
					"drained (every partition empty).",
			},
			"partitions": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "One entry per partition, sorted by partition number.",
				NestedObject:        topicPartitionObject,
			},
		},
	}
}

func (d *TopicOffsetsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData(req, resp)
}

func (d *TopicOffsetsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	topic := configValue[types.String](ctx, req.Config, "topic", &resp.Diagnostics)
	isolationLevel := configValue[types.String](ctx, req.Config, "isolation_level", &resp.Diagnostics)
	timestamp := configValue[rfc3339Value](ctx, req.Config, "timestamp", &resp.Diagnostics) // time_types.go
	tiered := configValue[types.Bool](ctx, req.Config, "tiered_offsets", &resp.Diagnostics)
	allowMissing := configValue[types.Bool](ctx, req.Config, "allow_missing", &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !clientKnown(d.data, &resp.Diagnostics) {
		return
	}
	ctx = withReadTimeout(ctx, req.Config, &resp.Diagnostics) // read_timeout.go
	q := kafkaclient.OffsetsRequest{
		Topic:         topic.ValueString(),
		Isolation:     isolation(isolationLevel),
		TimestampMs:   timestampMs(timestamp.RFC3339, path.Root("timestamp"), &resp.Diagnostics),
		TieredOffsets: tiered.ValueBool(),
	}
	if resp.Diagnostics.HasError() {
		return
	}
	ctx = tflog.SetField(ctx, "topic", q.Topic)
	ctx, rl := startReadLog(ctx, d.data) // read_log.go: the read's requests, at DEBUG and TRACE
	defer rl.end(&resp.Diagnostics)
	res, err := d.data.client.Offsets(ctx, q)
	if topicMissing(err, allowMissing.ValueBool()) {
		tflog.Debug(ctx, "topic not found, allow_missing is set")
		setState(&resp.State, withEmptyList(missingTopic, "partitions", topicPartitionType))
		return
	}
	if err != nil {
		addReadError(&resp.Diagnostics, err, topicOffsetsErrorAttrs, d.data.principal)
		return
	}

	warnUnanswered(&resp.Diagnostics, res, func(kafkaclient.LookupName) path.Path { return path.Root("tiered_offsets") })
	var total int64
	for _, p := range res {
		total = sumOffsets(total, p.Latest-p.Earliest, "message_count", &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	tflog.Debug(ctx, "read topic offsets", map[string]any{"partition_count": len(res), "message_count": total})
	setState(&resp.State, tfAttrs{
		"exists":          tfBool(true),
		"partition_count": tfInt64(int64(len(res))),
		"message_count":   tfInt64(total),
		"partitions":      tfNestedList(topicPartitionType, res, topicPartitionAttrs),
	})
}
