package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

var _ datasource.DataSourceWithConfigure = &ConsumerGroupsDataSource{}

// ConsumerGroupsDataSource is kafka_consumer_groups: every consumer group of the cluster (or of
// some topics), with its state and total lag.
type ConsumerGroupsDataSource struct {
	data *providerData
}

// NewConsumerGroupsDataSource is registered in KafkaProvider.DataSources.
func NewConsumerGroupsDataSource() datasource.DataSource { return &ConsumerGroupsDataSource{} }

// consumerGroupsErrorAttrs: the attributes its read errors point at (addReadError).
var consumerGroupsErrorAttrs = readErrorAttrs{topic: path.Root("topics"), fetchTimestamps: path.Root("fetch_timestamps")}

// consumerGroupsGroupAttrs is one entry of groups.
func consumerGroupsGroupAttrs(g kafkaclient.GroupSummary) tfAttrs {
	because := make([]string, 0, 3) // on the stack: tfStrings copies it
	if g.Assigned {
		because = append(because, "assigned")
	}
	if g.Committed {
		because = append(because, "committed")
	}
	if g.Subscribed {
		because = append(because, "subscribed")
	}
	return tfAttrs{
		"group_id":               tfString(g.GroupID),
		"state":                  tfStringOrNull(g.State),
		"protocol_type":          tfString(g.ProtocolType),
		"group_type":             tfStringOrNull(g.Type),
		"topics":                 tfStrings(g.Topics),
		"listed_because":         tfStrings(because),
		"uncommitted_partitions": tfInt64(int64(g.Uncommitted)),
		"total_lag":              tfInt64OrNull(g.TotalLag),
		"max_time_lag_ms":        tfInt64OrNull(g.MaxTimeLagMs),
		"caught_up":              tfBool(g.CaughtUp),
		"not_caught_up":          tfStrings(g.NotCaughtUp),
	}
}

// consumerGroupsGroupObject is the schema of one entry of groups, and so its element type.
var consumerGroupsGroupObject = schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
	"group_id": schema.StringAttribute{Computed: true, MarkdownDescription: "The group's id."},
	"state":    schema.StringAttribute{Computed: true, MarkdownDescription: groupStateDescription},
	"protocol_type": schema.StringAttribute{Computed: true, MarkdownDescription: "The protocol type " +
		"the group's coordinator lists (ListGroups): `consumer` for consumer groups (classic and " +
		"KIP-848), `connect` for Kafka Connect workers, `streams` for Kafka Streams groups of the " +
		"streams protocol (KIP-1071), `share` for share groups (KIP-932), `\"\"` for a group that only " +
		"ever had offsets committed by an admin client. Other clients may register other types."},
	"group_type": schema.StringAttribute{Computed: true, MarkdownDescription: "The group's kind, as " +
		"ListGroups v5 (KIP-1043, Kafka 3.8+) names it: `classic`, `consumer` (KIP-848), `share` " +
		"(KIP-932) or `streams` (KIP-1071); `null` where the broker does not say (ListGroups before v5)."},
	"topics": schema.ListAttribute{ElementType: types.StringType, Computed: true,
		MarkdownDescription: "The topics the group reads (within `topics`), sorted: those it has committed " +
			"offsets on (for a share group, share-partition state: it has fetched from them) and those its " +
			"members are assigned now."},
	"listed_because": schema.ListAttribute{ElementType: types.StringType, Computed: true,
		MarkdownDescription: "Why the group is listed as a reader of these topics, sorted: `committed` (it has " +
			"committed offsets there, OffsetFetch; for a share group, share-partition state, " +
			"DescribeShareGroupOffsets) and/or `assigned` (its members own partitions there now: DescribeGroups " +
			"for classic groups, ConsumerGroupDescribe for KIP-848 groups, ShareGroupDescribe for share groups, " +
			"StreamsGroupDescribe for streams groups, whose active tasks read their subtopologies' source " +
			"topics) and/or `subscribed` (its members subscribe to one of these topics and own none of its " +
			"partitions yet, ConsumerGroupDescribe and ShareGroupDescribe; or a share group, members or not, " +
			"has share-partition state there without a start offset, DescribeShareGroupOffsets: it subscribed and " +
			"has delivered nothing yet). Empty for a group without commits or members on any topic, listed when " +
			"`topics` is unset."},
	"uncommitted_partitions": schema.Int64Attribute{Computed: true, MarkdownDescription: uncommittedPartitionsDescription},
	"caught_up":              schema.BoolAttribute{Computed: true, MarkdownDescription: caughtUpDescription},
	"not_caught_up": schema.ListAttribute{ElementType: types.StringType, Computed: true,
		MarkdownDescription: notCaughtUpDescription},
	"total_lag": schema.Int64Attribute{Computed: true, MarkdownDescription: totalLagRule + " For a share group, the sum of its " +
		"share-partition lags as `kafka_consumer_group_offsets` reads them (the guide \"What caught up " +
		"means\" gives the Kafka versions). `null` wherever no lag " +
		"measures how far behind the group is, so that `total_lag == 0` is false there: a partition " +
		"without a commit where records wait, a commit outside the log, a `topics not seen` line, no " +
		"partition read at all (a group without commits or members there)."},
	"max_time_lag_ms": schema.Int64Attribute{Computed: true, MarkdownDescription: "The group's time lag " +
		"over every partition of `topics` (the group's): `null` too where `total_lag` is, " +
		"and where a partition holds records but no commit of the group (a partition added since it " +
		"committed). " + maxTimeLagMsDescription},
}}

// consumerGroupsGroupType is the Terraform type of one entry of groups.
var consumerGroupsGroupType = nestedObjectType(consumerGroupsGroupObject)

// consumerGroupsEmptyTopics is what `topics = []` would have meant here.
var consumerGroupsEmptyTopics = emptyTopics{
	meaning: "no group would be read, and groups would be empty: \"no group reads these topics, none lags\"",
	unset:   "every group of the cluster",
}

func (d *ConsumerGroupsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_consumer_groups"
}

func (d *ConsumerGroupsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The consumer groups of the cluster, or those that read some topics, with their " +
			"state and lag, and `caught_up` over them all. Covers classic, KIP-848, Kafka Connect, streams and " +
			"share groups.",
		Attributes: map[string]schema.Attribute{
			"timeout": readTimeoutAttribute(""),
			"topics": schema.SetAttribute{
				ElementType: types.StringType,
				CustomType:  newTopicSetType(), // topic_set_type.go: no quadratic walk after the read
				Optional:    true,
				MarkdownDescription: "Keep only the groups that read at least one of these " +
					"topics (a committed offset there, members assigned one of its partitions " +
					"now, or subscribed to it: see `listed_because`), and only these topics in " +
					"each group's `topics` and `total_lag`; each topic must exist. Default: " +
					"every group, over every topic it has commits on or is assigned, and the " +
					"read asks each broker which topics the principal may not see (DescribeLogDirs): " +
					"where any is hidden, no group is `caught_up`. An empty " +
					"set is an error (`Empty topics set`), while planning or, when it was " +
					"unknown then, at the read: it would select no group.",
				Validators: topicSetValidators(consumerGroupsEmptyTopics),
			},
			"group_id_regex": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "An RE2 regular expression (Go's `regexp` syntax) that the **whole** group id " +
					"must match: `orders-.*` selects `orders-billing`, not `legacy-orders-billing`. Default: every group.",
				Validators: []validator.String{wholeMatchValidator{}},
			},
			"isolation_level":  isolationLevelAttribute(),
			"fetch_timestamps": fetchTimestampsAttribute(),
			"groups": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "One entry per selected group, sorted by `group_id`.",
				NestedObject:        consumerGroupsGroupObject,
			},
			// consumer_groups_verdict.go: the values a gate (and a terraform test mock) needs without a loop.
			"group_ids":     groupIDsAttribute,
			"caught_up":     groupsCaughtUpAttribute,
			"not_caught_up": groupsNotCaughtUpAttribute,
		},
	}
}

func (d *ConsumerGroupsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData(req, resp)
}

func (d *ConsumerGroupsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	topics := configValue[topicSetValue](ctx, req.Config, "topics", &resp.Diagnostics)
	groupIDRegex := configValue[types.String](ctx, req.Config, "group_id_regex", &resp.Diagnostics)
	isolationLevel := configValue[types.String](ctx, req.Config, "isolation_level", &resp.Diagnostics)
	fetchTimestamps := configValue[types.Bool](ctx, req.Config, "fetch_timestamps", &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !clientKnown(d.data, &resp.Diagnostics) {
		return
	}
	ctx = withReadTimeout(ctx, req.Config, &resp.Diagnostics) // read_timeout.go
	q := kafkaclient.ConsumerGroupsRequest{Isolation: isolation(isolationLevel), FetchTimestamps: fetchTimestamps.ValueBool()}
	q.GroupID = wholeMatch(groupIDRegex, path.Root("group_id_regex"), &resp.Diagnostics)
	q.Topics = topicSet(ctx, topics.SetValue, consumerGroupsEmptyTopics, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, rl := startReadLog(ctx, d.data) // read_log.go: the read's requests, at DEBUG and TRACE
	defer rl.end(&resp.Diagnostics)
	res, err := d.data.client.ConsumerGroups(ctx, q)
	if err != nil {
		addReadError(&resp.Diagnostics, err, consumerGroupsErrorAttrs, d.data.principal)
		return
	}
	tflog.Debug(ctx, "read consumer groups", map[string]any{"groups": len(res)})
	values := groupsVerdict(res, q.Topics, groupIDRegex.ValueString())
	values["groups"] = tfNestedList(consumerGroupsGroupType, res, consumerGroupsGroupAttrs)
	setState(&resp.State, values)
}
