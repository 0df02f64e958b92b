package provider

import (
	"context"
	"math"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

var _ datasource.DataSourceWithConfigure = &PartitionOffsetsDataSource{}

// PartitionOffsetsDataSource is kafka_partition_offsets: one partition's earliest and latest offsets.
type PartitionOffsetsDataSource struct {
	data *providerData
}

// NewPartitionOffsetsDataSource is registered in KafkaProvider.DataSources.
func NewPartitionOffsetsDataSource() datasource.DataSource { return &PartitionOffsetsDataSource{} }

// partitionOffsetsErrorAttrs: the attributes its read errors point at (addReadError).
var partitionOffsetsErrorAttrs = readErrorAttrs{topic: path.Root("topic"), partition: path.Root("partition")}

func (d *PartitionOffsetsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_partition_offsets"
}

func (d *PartitionOffsetsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The earliest and latest offsets of one partition of a topic, read with Kafka's " +
			"ListOffsets API; optionally the offset at a time, the record with the largest timestamp and the " +
			"tiered-storage offsets.",
		Attributes: withTieredOffsets(map[string]schema.Attribute{
			"timeout": readTimeoutAttribute(""),
			"topic":   topicAttribute(),
			"allow_missing": allowMissingAttribute("topic", "every offset `null`, so that no comparison of "+
				"offsets reads a deleted topic as drained or caught up. A partition out of range stays an error."),
			"exists": existsAttribute("topic"),
			"partition": schema.Int64Attribute{
				Required:            true,
				MarkdownDescription: "Partition number, from 0 to the topic's partition count minus one.",
				Validators:          []validator.Int64{int64validator.Between(0, math.MaxInt32)},
			},
			"isolation_level": isolationLevelAttribute(),
			"timestamp":       timestampAttribute(),
			"earliest_offset": schema.Int64Attribute{
				Computed: true,
				MarkdownDescription: "The log start offset (ListOffsets with timestamp -2): the offset of the " +
					"first record still in the partition. It moves forward with retention and DeleteRecords, " +
					"not with compaction. Never -1: an empty partition has `earliest_offset == latest_offset`.",
			},
			"latest_offset": schema.Int64Attribute{
				Computed: true,
				MarkdownDescription: "ListOffsets with timestamp -1: under `read_uncommitted` the high watermark, the " +
					"offset the next record will get; under `read_committed` the last stable offset. " +
					"`latest_offset - earliest_offset` is an offset span, not a record count: transaction markers " +
					"take offsets and compaction leaves gaps.",
			},
			"timestamp_offset": schema.Int64Attribute{
				Computed: true,
				MarkdownDescription: "With `timestamp` set: the first offset whose record timestamp is at or after " +
					"it (ListOffsets by time). `null` when no record is that late (the broker answers -1): a " +
					"consumer seeking to that time would then start at `latest_offset`. `null` without `timestamp`.",
			},
			"max_timestamp_offset": schema.Int64Attribute{
				Computed: true,
				MarkdownDescription: "The offset of the record with the largest timestamp " +
					"(ListOffsets timestamp -3, KIP-734, Kafka 3.0+); the first such record on a " +
					"tie. `null` when the partition holds no record, when that record was " +
					"deleted by DeleteRecords, under `read_committed` when it is at or after the " +
					"last stable offset, and, with a warning, on brokers before Kafka 3.0 and where the broker " +
					"refuses the lookup (it closes the connection at it: some Kafka-compatible services do). On a " +
					"topic with remote storage Kafka looks at local segments only: the notes " +
					"below say when that misses a record and what `tiered_offsets` does about " +
					"it.",
			},
			"max_timestamp": schema.StringAttribute{
				Computed:   true,
				CustomType: timetypes.RFC3339Type{},
				MarkdownDescription: "The largest record timestamp in the partition, as RFC 3339 in UTC with " +
					"milliseconds, Kafka's resolution (`\"2026-11-01T12:05:00.250Z\"`). `null` when `max_timestamp_offset` " +
					"is, and when that record has no timestamp (-1, message format before v1).",
			},
			"tiered_offsets": tieredOffsetsAttribute(),
		}),
	}
}

func (d *PartitionOffsetsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData(req, resp)
}

func (d *PartitionOffsetsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	topic := configValue[types.String](ctx, req.Config, "topic", &resp.Diagnostics)
	partition := configValue[types.Int64](ctx, req.Config, "partition", &resp.Diagnostics)
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
		Partitions:    []int{int(partition.ValueInt64())},
		Isolation:     isolation(isolationLevel),
		TimestampMs:   timestampMs(timestamp.RFC3339, path.Root("timestamp"), &resp.Diagnostics),
		MaxTimestamp:  true,
		TieredOffsets: tiered.ValueBool(),
	}
	if resp.Diagnostics.HasError() {
		return
	}
	ctx = tflog.SetField(ctx, "topic", q.Topic)
	ctx = tflog.SetField(ctx, "partition", q.Partitions[0])
	tflog.Debug(ctx, "reading partition offsets")
	ctx, rl := startReadLog(ctx, d.data) // read_log.go: the read's requests, at DEBUG and TRACE
	defer rl.end(&resp.Diagnostics)
	res, err := d.data.client.Offsets(ctx, q)
	if topicMissing(err, allowMissing.ValueBool()) { // the offsets stay null: nothing to compare
		tflog.Debug(ctx, "topic not found, allow_missing is set")
		setState(&resp.State, tfAttrs{"exists": tfBool(false)})
		return
	}
	if err != nil {
		addReadError(&resp.Diagnostics, err, partitionOffsetsErrorAttrs, d.data.principal)
		return
	}
	p := res[0]
	tflog.Debug(ctx, "read partition offsets", map[string]any{"earliest_offset": p.Earliest, "latest_offset": p.Latest})

	warnUnanswered(&resp.Diagnostics, res, partitionLookupAttribute) // unanswered.go
	addMaxTimestampLocalOnlyWarning(&resp.Diagnostics, q.Topic, p)
	setState(&resp.State, addTieredOffsets(tfAttrs{
		"exists":               tfBool(true),
		"earliest_offset":      tfInt64(p.Earliest),
		"latest_offset":        tfInt64(p.Latest),
		"timestamp_offset":     tfInt64OrNull(p.TimestampOffset),
		"max_timestamp_offset": tfInt64OrNull(p.MaxTimestampOffset),
		"max_timestamp":        tfTime(p.MaxTimestamp),
	}, p))
}
