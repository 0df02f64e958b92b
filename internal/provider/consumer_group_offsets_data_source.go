package provider

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
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

// consumerGroupOffsetsErrorAttrs: the attributes its read errors point at (addReadError).
var consumerGroupOffsetsErrorAttrs = readErrorAttrs{
	topic: path.Root("topics"), group: path.Root("group_id"), fetchTimestamps: path.Root("fetch_timestamps"),
}

// groupPartitionAttrs is one entry of partitions.
func groupPartitionAttrs(p kafkaclient.GroupPartitionOffsets) tfAttrs {
	return tfAttrs{
		"topic":            tfString(p.Topic),
		"partition":        tfInt64(int64(p.Partition)),
		"committed_offset": tfInt64OrNull(p.Committed),
		"latest_offset":    tfInt64(p.Latest),
		"lag":              tfInt64OrNull(p.Lag),
		"assigned":         tfBool(p.Assigned),
		"caught_up":        tfBool(p.NotCaughtUp() == ""),
		// null unless the read asked for them (fetch_timestamps): time_lag_attributes.go
		"next_record_timestamp": tfTime(nextRecordMs(p)),
		"time_lag_ms":           tfInt64OrNull(p.LagMs),
	}
}

// groupPartitionObject is the schema of one entry of partitions, and so its element type.
var groupPartitionObject = schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
	"topic":     schema.StringAttribute{Computed: true, MarkdownDescription: "Topic name."},
	"partition": schema.Int64Attribute{Computed: true, MarkdownDescription: "Partition number."},
	"committed_offset": schema.Int64Attribute{Computed: true, MarkdownDescription: "The group's " +
		"committed offset (OffsetFetch): the next offset it will read. `null` when it has no commit. " +
		"For a share group (`group_type = \"share\"`), which commits nothing, the share-partition start " +
		"offset (DescribeShareGroupOffsets, KIP-932; `START-OFFSET` of `kafka-share-groups.sh --describe`): " +
		"every record before it is acknowledged or archived; `null` where the group has no state for " +
		"the partition."},
	"assigned": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether a member of the group " +
		"owns the partition now: its classic assignment (DescribeGroups), KIP-848 assignment " +
		"(ConsumerGroupDescribe), share assignment (ShareGroupDescribe) or a streams active task reading it " +
		"(StreamsGroupDescribe). With no commit and records in the partition, the lag there is unknown: see " +
		"`uncommitted_partitions`."},
	"caught_up": schema.BoolAttribute{Computed: true, MarkdownDescription: "The data source's `caught_up` " +
		"verdict for this partition alone, never `null`: `lag` 0, or no commit where the partition holds no " +
		"record. `false` names the partition in `not_caught_up`, with its reason."},
	"latest_offset": schema.Int64Attribute{Computed: true, MarkdownDescription: "The partition's " +
		"latest offset under `isolation_level` (ListOffsets timestamp -1)."},
	"lag": schema.Int64Attribute{Computed: true, MarkdownDescription: "`latest_offset - " +
		"committed_offset` in offsets (transaction markers count), as `kafka-consumer-groups.sh` " +
		"shows it under `read_uncommitted` (under `read_committed` it stops at the last stable " +
		"offset, and `total_lag` also counts the records held past it): not clamped, so " +
		"**negative** for a commit past the log end (the read warns `Committed offset outside the " +
		"log`), and `null` without a commit. For a share group, " +
		"the records from the share-partition start offset not yet acknowledged, as the broker " +
		"counts them (Kafka 4.2+; on 4.1 `latest_offset - committed_offset`, an upper bound; on " +
		"4.0 the read fails). The guide \"What caught up means\" has " +
		"every case."},
	"next_record_timestamp": nextRecordTimestampAttribute,
	"time_lag_ms":           timeLagMsAttribute,
}}

// groupPartitionType is the Terraform type of an entry of partitions.
var groupPartitionType = nestedObjectType(groupPartitionObject)

// groupOffsetsEmptyTopics is what `topics = []` would have meant here (an upstream regex that
// matched nothing).
var groupOffsetsEmptyTopics = emptyTopics{
	meaning: "nothing would be read, and total_lag would be 0 with no partitions: \"caught up\"",
	unset:   "every topic the group has committed offsets for",
}

func (d *ConsumerGroupOffsetsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_consumer_group_offsets"
}

func (d *ConsumerGroupOffsetsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A consumer group's committed offsets and lag on every partition of its topics, " +
			"with `caught_up`, the verdict to gate on. Reads classic, KIP-848, streams and share groups, and can " +
			"wait during apply until the group has caught up.",
		Blocks: map[string]schema.Block{"wait": groupWaitBlock()}, // consumer_group_offsets_wait.go
		Attributes: map[string]schema.Attribute{
			"timeout": readTimeoutAttribute(" With a `wait` block it bounds each of the wait's reads; `wait.timeout` bounds the wait as a whole."),
			"group_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "The consumer group's `group.id`.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"allow_missing": allowMissingAttribute("consumer group", "`caught_up = false` with the reason in "+
				"`not_caught_up`, `partitions` empty and `total_lag` `null`, so that a new consumer's first rollout "+
				"can plan while its gate still refuses to read a group nobody runs as caught up (a `wait` block "+
				"still waits for the group to appear; a missing topic of `topics` stays an error)."),
			"exists": existsAttribute("consumer group"),
			"topics": schema.SetAttribute{
				ElementType: types.StringType,
				CustomType:  newTopicSetType(), // topic_set_type.go: no quadratic walk after the read
				Optional:    true,
				MarkdownDescription: "Restrict the read to these topics: every partition of each, with " +
					"`committed_offset` and `lag` `null` where the group has no commit. Default: every topic the " +
					"group has committed offsets for or its members are assigned (again every partition of each); the read then also asks each broker which topics the principal may not see (DescribeLogDirs, DESCRIBE on the cluster), and `caught_up` is `false` where any is hidden. An empty set is an error " +
					"(`Empty topics set`), while planning or, when it was unknown then, at the read: it would read " +
					"nothing and show `total_lag` 0.",
				Validators: topicSetValidators(groupOffsetsEmptyTopics),
			},
			"isolation_level":  isolationLevelAttribute(),
			"fetch_timestamps": fetchTimestampsAttribute(),
			"state":            schema.StringAttribute{Computed: true, MarkdownDescription: groupStateDescription},
			"group_type": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "The group's kind: `classic` (the classic protocol, which DescribeGroups " +
					"describes), `consumer` (KIP-848), `share` (KIP-932: a queue-like group whose members " +
					"acknowledge records one by one; its progress is read with DescribeShareGroupOffsets, see " +
					"`committed_offset` and `lag`) or `streams` (KIP-1071), as ListGroups v5 (KIP-1043, Kafka " +
					"3.8+) names it. `null` where the broker does not say (ListGroups before v5).",
			},
			"member_count": schema.Int64Attribute{
				Computed: true,
				MarkdownDescription: "How many members the group has now, as the describe API of its kind answers " +
					"(DescribeGroups, ConsumerGroupDescribe, ShareGroupDescribe, StreamsGroupDescribe); 0 for an " +
					"`Empty` group. `null` where no describe API answers for it (a live group of a broker before " +
					"ListGroups v5 that DescribeGroups does not know).",
			},
			"uncommitted_partitions": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: uncommittedPartitionsDescription,
			},
			"total_lag": schema.Int64Attribute{
				Computed: true,
				MarkdownDescription: totalLagRule + " For a share group, the sum of its positive share-partition " +
					"`lag`s. `null` wherever no lag measures how far behind the group is, so that `total_lag == 0` is false " +
					"there: a partition without a commit where records wait (`uncommitted_partitions` counts those a member " +
					"reads), a commit outside the log, a `topics not seen` line, no partition read at all.",
			},
			"caught_up":     schema.BoolAttribute{Computed: true, MarkdownDescription: caughtUpDescription},
			"not_caught_up": schema.ListAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: notCaughtUpDescription},
			"max_time_lag_ms": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: maxTimeLagMsDescription + " `null` too where `total_lag` is.",
			},
			"partitions": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "One entry per partition, sorted by topic, then partition.",
				NestedObject:        groupPartitionObject,
			},
			"committed_offsets": schema.MapAttribute{ElementType: types.Int64Type, Computed: true,
				MarkdownDescription: "Each partition's `committed_offset`, keyed `\"<topic>/<partition>\"` (`null` where " +
					"the group has no commit): for a gate on one partition, or on each against another data source's " +
					"offsets, that a `terraform test` mock can set (it cannot set `partitions`). Only the partitions " +
					"read are keys: `lookup(…, key, null)` is `null` for another."},
		},
	}
}

func (d *ConsumerGroupOffsetsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData(req, resp)
}

func (d *ConsumerGroupOffsetsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	groupID := configValue[types.String](ctx, req.Config, "group_id", &resp.Diagnostics)
	topics := configValue[topicSetValue](ctx, req.Config, "topics", &resp.Diagnostics)
	isolationLevel := configValue[types.String](ctx, req.Config, "isolation_level", &resp.Diagnostics)
	fetchTimestamps := configValue[types.Bool](ctx, req.Config, "fetch_timestamps", &resp.Diagnostics)
	wait := configValue[*groupWaitModel](ctx, req.Config, "wait", &resp.Diagnostics) // consumer_group_offsets_wait.go
	allowMissing := configValue[types.Bool](ctx, req.Config, "allow_missing", &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !clientKnown(d.data, &resp.Diagnostics) {
		return
	}
	ctx = withReadTimeout(ctx, req.Config, &resp.Diagnostics) // read_timeout.go
	q := kafkaclient.GroupOffsetsRequest{GroupID: groupID.ValueString(), Isolation: isolation(isolationLevel),
		FetchTimestamps: fetchTimestamps.ValueBool() || wait.waitsForTime()}
	q.Topics = topicSet(ctx, topics.SetValue, groupOffsetsEmptyTopics, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx = tflog.SetField(ctx, "group_id", q.GroupID)
	res, missing, ok := readGroupOffsets(ctx, d.data, q, wait, allowMissing.ValueBool(), &resp.Diagnostics) // once, or with the wait block
	if !ok {
		return
	}
	if missing != nil {
		tflog.Debug(ctx, "consumer group not found, allow_missing is set")
		setState(&resp.State, withEmptyList(tfAttrs{
			"exists":                 tfBool(false),
			"caught_up":              tfBool(false),
			"not_caught_up":          tfStrings([]string{missingReason(missing)}),
			"uncommitted_partitions": tfInt64(0),
			"committed_offsets":      tftypes.NewValue(committedOffsetsType, map[string]tftypes.Value{}),
		}, "partitions", groupPartitionType))
		return
	}

	addOutOfRangeWarning(&resp.Diagnostics, q.GroupID, res.Partitions)
	addTimeLagWarnings(&resp.Diagnostics, q.GroupID, res.Type, res.Partitions)
	tflog.Debug(ctx, "read consumer group offsets", map[string]any{"state": res.State, "caught_up": res.CaughtUp})
	memberCount := tfInt64OrNull(nil)
	if res.Members >= 0 {
		memberCount = tfInt64(int64(res.Members))
	}
	setState(&resp.State, tfAttrs{
		"exists":                 tfBool(true),
		"state":                  tfStringOrNull(res.State),
		"group_type":             tfStringOrNull(res.Type),
		"member_count":           memberCount,
		"caught_up":              tfBool(res.CaughtUp),
		"not_caught_up":          tfStrings(res.NotCaughtUp),
		"uncommitted_partitions": tfInt64(int64(res.Uncommitted)),
		"total_lag":              tfInt64OrNull(res.TotalLag),
		"max_time_lag_ms":        tfInt64OrNull(res.MaxTimeLagMs),
		"partitions":             tfNestedList(groupPartitionType, res.Partitions, groupPartitionAttrs),
		"committed_offsets":      committedOffsets(res.Partitions),
	})
}

// addOutOfRangeWarning names every partition whose commit lies outside its log, and says what the
// group's consumers will do there: such a commit is not progress, whatever its lag.
func addOutOfRangeWarning(diags *diag.Diagnostics, group string, partitions []kafkaclient.GroupPartitionOffsets) {
	var lines []string
	for _, p := range partitions {
		if !p.OutOfRange {
			continue
		}
		where := "before the log start"
		if *p.Committed > p.LogEnd {
			where = "past the log end"
		}
		lines = append(lines, fmt.Sprintf("- topic %q partition %d: committed offset %d is %s (the log spans "+
			"offsets %d to %d); lag %d", p.Topic, p.Partition, *p.Committed, where, p.Earliest, p.LogEnd, *p.Lag))
	}
	if len(lines) == 0 {
		return
	}
	diags.AddWarning("Committed offset outside the log", fmt.Sprintf("Consumer group %q has committed offsets "+
		"outside the range [earliest, latest] of %d partition(s):\n%s\n\nA consumer of the group that resumes "+
		"there is answered OFFSET_OUT_OF_RANGE and resets per its auto.offset.reset (earliest: from the log "+
		"start; latest: from the log end; none: it fails) instead of reading on from its commit, so records may "+
		"be read again or skipped. A commit past the log end remains after a topic is deleted and recreated "+
		"under the same name, or after an unclean leader election. Such a commit is not progress: caught_up is "+
		"false, and a gate on caught_up blocks.",
		group, len(lines), strings.Join(lines, "\n")))
}

// committedOffsetsType is the Terraform type of committed_offsets.
var committedOffsetsType = tftypes.Map{ElementType: tftypes.Number}

// committedOffsets is committed_offsets: each partition's commit by "topic/partition".
func committedOffsets(partitions []kafkaclient.GroupPartitionOffsets) tftypes.Value {
	m := make(map[string]tftypes.Value, len(partitions))
	for _, p := range partitions {
		m[p.Topic+"/"+strconv.Itoa(p.Partition)] = tfInt64OrNull(p.Committed)
	}
	return tftypes.NewValue(committedOffsetsType, m)
}
