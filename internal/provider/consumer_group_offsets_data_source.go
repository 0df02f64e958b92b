package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

var _ datasource.DataSourceWithConfigure = &ConsumerGroupOffsetsDataSource{}

// ConsumerGroupOffsetsDataSource is kafka_consumer_group_offsets: a group's committed offsets and lag.
type ConsumerGroupOffsetsDataSource struct {
	data *providerData
}

// NewConsumerGroupOffsetsDataSource is registered in KafkaProvider.DataSources.
func NewConsumerGroupOffsetsDataSource() datasource.DataSource {
	return &ConsumerGroupOffsetsDataSource{}
}

type consumerGroupOffsetsModel struct {
	GroupID        types.String    `tfsdk:"group_id"`
	Topics         types.Set       `tfsdk:"topics"`
	IsolationLevel types.String    `tfsdk:"isolation_level"`
	State          types.String    `tfsdk:"state"`
	TotalLag       types.Int64     `tfsdk:"total_lag"`
	Partitions     types.List      `tfsdk:"partitions"`
	Wait           *groupWaitModel `tfsdk:"wait"` // consumer_group_offsets_wait.go
}

var groupPartitionType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"topic":            types.StringType,
	"partition":        types.Int64Type,
	"committed_offset": types.Int64Type,
	"latest_offset":    types.Int64Type,
	"lag":              types.Int64Type,
}}

func (d *ConsumerGroupOffsetsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_consumer_group_offsets"
}

func (d *ConsumerGroupOffsetsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A consumer group's committed offsets and lag per partition, read with Kafka's " +
			"DescribeGroups, OffsetFetch, Metadata and ListOffsets APIs; for groups of Kafka 4's consumer protocol " +
			"(KIP-848, `group.protocol=consumer`), which DescribeGroups does not see, the state comes from " +
			"FindCoordinator and ListGroups. Read-only: it never joins, syncs, heartbeats or commits, so the " +
			"group's members, generation and offsets are untouched. A group has caught up when `total_lag == 0`; " +
			"in a gate, set `topics`, so that a group that has not committed yet shows its partitions with a " +
			"`null` commit instead of no partitions and a `total_lag` of 0. Without `topics`, the broker lists " +
			"only the topics the provider's principal may DESCRIBE; a listed topic it may not is an error " +
			"(TOPIC_AUTHORIZATION_FAILED) naming the ACL to grant.\n\n" +
			"Errors: `Consumer group not found` (on `group_id`) when the group has neither members nor committed " +
			"offsets (brokers answer \"no offsets\", not \"no such group\"); `Topic not found` (on `topics`) for a " +
			"listed or committed topic that does not exist; and those of `kafka_partition_offsets`.",
		Blocks: map[string]schema.Block{"wait": groupWaitBlock()}, // consumer_group_offsets_wait.go
		Attributes: map[string]schema.Attribute{
			"group_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "The consumer group's `group.id`.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"topics": schema.SetAttribute{
				ElementType: types.StringType,
				Optional:    true,
				MarkdownDescription: "Restrict the read to these topics: every partition of each, with " +
					"`committed_offset` and `lag` `null` where the group has no commit. Default: every topic the " +
					"group has committed offsets for (again every partition of each).",
				Validators: []validator.Set{setvalidator.ValueStringsAre(topicNameValidators...)},
			},
			"isolation_level": isolationLevelAttribute(),
			"state": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "The group's state as its coordinator reports it: for classic groups " +
					"(DescribeGroups) `Stable`, `PreparingRebalance`, `CompletingRebalance`, `Empty` (no members, " +
					"offsets kept) or `Dead`; for consumer-protocol groups (ListGroups) `Stable`, `Assigning`, " +
					"`Reconciling`, `Empty` or `Dead`.",
			},
			"total_lag": schema.Int64Attribute{
				Computed: true,
				MarkdownDescription: "The sum of `lag` over the partitions that have a commit. Partitions without " +
					"a commit are left out: check `committed_offset` for `null` to gate on them.",
			},
			"partitions": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "One entry per partition, sorted by topic, then partition.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"topic":     schema.StringAttribute{Computed: true, MarkdownDescription: "Topic name."},
					"partition": schema.Int64Attribute{Computed: true, MarkdownDescription: "Partition number."},
					"committed_offset": schema.Int64Attribute{Computed: true, MarkdownDescription: "The group's " +
						"committed offset (OffsetFetch): the next offset it will read. `null` when it has no commit."},
					"latest_offset": schema.Int64Attribute{Computed: true, MarkdownDescription: "The partition's " +
						"latest offset under `isolation_level` (ListOffsets timestamp -1)."},
					"lag": schema.Int64Attribute{Computed: true, MarkdownDescription: "`latest_offset - " +
						"committed_offset`, clamped at 0 (in offsets, not records: transaction markers count). " +
						"`null` when there is no commit."},
				}},
			},
		},
	}
}

func (d *ConsumerGroupOffsetsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData(req, resp)
}

func (d *ConsumerGroupOffsetsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m consumerGroupOffsetsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || !clientKnown(d.data, &resp.Diagnostics) {
		return
	}
	q := kafkaclient.GroupOffsetsRequest{GroupID: m.GroupID.ValueString(), Isolation: isolation(m.IsolationLevel)}
	if !m.Topics.IsNull() {
		q.Topics = []string{} // an empty set restricts to no topic
		resp.Diagnostics.Append(m.Topics.ElementsAs(ctx, &q.Topics, false)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	ctx = tflog.SetField(ctx, "group_id", q.GroupID)
	res, ok := readGroupOffsets(ctx, d.data.client, q, m.Wait, &resp.Diagnostics) // once, or with the wait block
	if !ok {
		return
	}

	var total int64
	partitions := make([]attr.Value, len(res.Partitions))
	for i, p := range res.Partitions {
		if p.Lag != nil {
			total = sumOffsets(total, *p.Lag, "total_lag", &resp.Diagnostics)
		}
		obj, diags := types.ObjectValue(groupPartitionType.AttrTypes, map[string]attr.Value{
			"topic":            types.StringValue(p.Topic),
			"partition":        types.Int64Value(int64(p.Partition)),
			"committed_offset": optionalInt64(p.Committed),
			"latest_offset":    types.Int64Value(p.Latest),
			"lag":              optionalInt64(p.Lag),
		})
		resp.Diagnostics.Append(diags...)
		partitions[i] = obj
	}
	list, diags := types.ListValue(groupPartitionType, partitions)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	tflog.Debug(ctx, "read consumer group offsets", map[string]any{"state": res.State, "total_lag": total})
	m.State = types.StringValue(res.State)
	m.TotalLag = types.Int64Value(total)
	m.Partitions = list
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
