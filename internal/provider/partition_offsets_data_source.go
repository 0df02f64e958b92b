package provider

import (
	"context"
	"fmt"
	"math"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

var _ datasource.DataSourceWithConfigure = &PartitionOffsetsDataSource{}

// PartitionOffsetsDataSource is kafka_partition_offsets: one partition's earliest and latest offsets.
type PartitionOffsetsDataSource struct {
	data *providerData
}

// NewPartitionOffsetsDataSource is registered in KafkaProvider.DataSources.
func NewPartitionOffsetsDataSource() datasource.DataSource { return &PartitionOffsetsDataSource{} }

type partitionOffsetsModel struct {
	Topic          types.String `tfsdk:"topic"`
	Partition      types.Int64  `tfsdk:"partition"`
	EarliestOffset types.Int64  `tfsdk:"earliest_offset"`
	LatestOffset   types.Int64  `tfsdk:"latest_offset"`
}

// topicNameValidators are Kafka's rules for topic names (org.apache.kafka.common.internals.Topic).
var topicNameValidators = []validator.String{
	stringvalidator.LengthBetween(1, 249),
	stringvalidator.RegexMatches(regexp.MustCompile(`^[a-zA-Z0-9._-]+$`),
		"must use only the characters a-z, A-Z, 0-9, '.', '_' and '-' (Kafka's rule for topic names)"),
	stringvalidator.NoneOf(".", ".."),
}

func (d *PartitionOffsetsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_partition_offsets"
}

func (d *PartitionOffsetsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The earliest and latest offsets of one partition of a topic, read with Kafka's " +
			"ListOffsets API (read_uncommitted). Read while planning whenever the arguments and the provider " +
			"configuration are known. Offsets keep moving: a value read at plan time may be behind by apply.\n\n" +
			"Errors, by their summary line:\n\n" +
			"- `Topic not found` (on `topic`): fresh metadata says the topic does not exist. This read never " +
			"creates it. `__consumer_offsets` exists only once some consumer group has committed.\n" +
			"- `Partition out of range` (on `partition`): names the topic's partition count and valid range.\n" +
			"- `Cannot reach the Kafka cluster`: names each bootstrap address and what happened there (connection " +
			"refused, host name lookup failed, accepted but never answered, answered with HTTP or TLS, ...).\n" +
			"- `Kafka broker refused the request`: the broker's error code and description, such as " +
			"TOPIC_AUTHORIZATION_FAILED.\n" +
			"- `Kafka read timed out`: the cluster answered, but a retriable error (leader election, offline " +
			"partition) outlasted the provider's `timeout`; names the last error.\n" +
			"- `Provider configuration not known yet`: `bootstrap_servers` depends on a resource not yet " +
			"created; add `depends_on` so Terraform reads this data source during apply.",
		Attributes: map[string]schema.Attribute{
			"topic": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Name of the topic: 1 to 249 characters of `a-z A-Z 0-9 . _ -`, and not " +
					"`.` or `..` (Kafka's rules). Internal topics such as `__consumer_offsets` are allowed.",
				Validators: topicNameValidators,
			},
			"partition": schema.Int64Attribute{
				Required:            true,
				MarkdownDescription: "Partition number, from 0 to the topic's partition count minus one.",
				Validators:          []validator.Int64{int64validator.Between(0, math.MaxInt32)},
			},
			"earliest_offset": schema.Int64Attribute{
				Computed: true,
				MarkdownDescription: "The log start offset (ListOffsets with timestamp -2): the offset of the " +
					"first record still in the partition. It moves forward with retention and DeleteRecords, " +
					"not with compaction. Never -1: an empty partition has `earliest_offset == latest_offset`.",
			},
			"latest_offset": schema.Int64Attribute{
				Computed: true,
				MarkdownDescription: "The high watermark (ListOffsets with timestamp -1, read_uncommitted): the " +
					"offset the next record will get. `latest_offset - earliest_offset` is an offset span, not a " +
					"record count: transaction markers take offsets and compaction leaves gaps.",
			},
		},
	}
}

func (d *PartitionOffsetsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if req.ProviderData == nil {
		return // the provider is not configured yet (validation); Read always comes after Configure
	}
	data, ok := req.ProviderData.(*providerData)
	if !ok {
		resp.Diagnostics.AddError("Unexpected provider data", fmt.Sprintf("got %T; this is a bug in the provider", req.ProviderData))
		return
	}
	d.data = data
}

func (d *PartitionOffsetsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m partitionOffsetsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if d.data == nil || d.data.client == nil {
		resp.Diagnostics.AddError("Provider configuration not known yet", providerUnknownDetail)
		return
	}

	topic, partition := m.Topic.ValueString(), int(m.Partition.ValueInt64())
	ctx = tflog.SetField(ctx, "topic", topic)
	ctx = tflog.SetField(ctx, "partition", partition)
	tflog.Debug(ctx, "reading partition offsets")
	offsets, err := d.data.client.PartitionOffsets(ctx, topic, partition)
	if err != nil {
		addReadError(&resp.Diagnostics, err)
		return
	}
	tflog.Debug(ctx, "read partition offsets", map[string]any{"earliest_offset": offsets.Earliest, "latest_offset": offsets.Latest})

	m.EarliestOffset = types.Int64Value(offsets.Earliest)
	m.LatestOffset = types.Int64Value(offsets.Latest)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// providerUnknownDetail explains a read attempted while the provider's own configuration was unknown.
const providerUnknownDetail = "The kafka provider's configuration depends on values known only after apply " +
	"(for example bootstrap_servers taken from a cluster created in the same run), so there is no cluster to " +
	"read from while planning. Add depends_on = [<the resource that creates the cluster>] to this data source: " +
	"Terraform then reads it during apply, once the address is known. Nothing was dialled."
