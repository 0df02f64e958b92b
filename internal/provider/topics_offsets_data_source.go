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

var _ datasource.DataSourceWithConfigure = &TopicsOffsetsDataSource{}

// TopicsOffsetsDataSource is kafka_topics_offsets: message counts of every topic whose name
// matches a pattern.
type TopicsOffsetsDataSource struct {
	data *providerData
}

// NewTopicsOffsetsDataSource is registered in KafkaProvider.DataSources.
func NewTopicsOffsetsDataSource() datasource.DataSource { return &TopicsOffsetsDataSource{} }

// topicsOffsetsErrorAttrs: the attributes its read errors point at (addReadError).
var topicsOffsetsErrorAttrs = readErrorAttrs{topic: path.Root("name_regex")}

// topicsOffsetsTopicAttrs is one entry of topics.
func topicsOffsetsTopicAttrs(t topicsOffsetsTopic) tfAttrs {
	return tfAttrs{
		"name":            tfString(t.Name),
		"partition_count": tfInt64(int64(len(t.Partitions))),
		"message_count":   tfInt64(t.messageCount),
		"internal":        tfBool(t.Internal),
		"last_write_time": tfTime(kafkaclient.LastWriteMs(t.Partitions)),
	}
}

// topicsOffsetsTopic is a topic read and the sum of its partitions' messages.
type topicsOffsetsTopic struct {
	kafkaclient.TopicOffsets
	messageCount int64
}

// topicsOffsetsTopicObject is the schema of one entry of topics, and so its element type.
var topicsOffsetsTopicObject = schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
	"name":            schema.StringAttribute{Computed: true, MarkdownDescription: "Topic name."},
	"partition_count": partitionCountAttribute(),
	"message_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "The sum over " +
		"partitions of latest offset − earliest offset, as `kafka_topic_offsets` counts it: exact " +
		"for topics that are neither compacted nor transactional, otherwise an upper bound. 0 " +
		"exactly when the topic is empty (drained, consumed, is `kafka_topics_drained`'s)."},
	"internal": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether Kafka marks the topic as internal."},
	"last_write_time": lastWriteTimeAttribute("The topic's last write, over its partitions (`null` too where one of " +
		"them holds records whose last write is not known)"),
}}

// topicsOffsetsTopicType is the Terraform type of an entry of topics.
var topicsOffsetsTopicType = nestedObjectType(topicsOffsetsTopicObject)

func (d *TopicsOffsetsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_topics_offsets"
}

func (d *TopicsOffsetsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Every topic whose whole name matches `name_regex`, with its partition count and " +
			"message count, sorted by name, read with Kafka's Metadata and ListOffsets APIs.",
		Attributes: map[string]schema.Attribute{
			"timeout": readTimeoutAttribute(""),
			"name_regex": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "An RE2 regular expression (Go's `regexp` syntax) that the **whole** topic " +
					"name must match, as with Kafka's own tools: `orders` selects `orders` but not `orders.v2`; " +
					"`orders\\..*` (written `\"orders\\\\..*\"` in HCL) selects every topic whose name starts with " +
					"`orders.`. " +
					"Default: every topic.",
				Validators: []validator.String{wholeMatchValidator{}},
			},
			"include_internal": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Also select Kafka's internal topics, which Metadata marks as internal " +
					"(`__consumer_offsets`, `__transaction_state`, `__share_group_state`). Default `false`.",
			},
			"isolation_level":       isolationLevelAttribute(),
			"fetch_last_write_time": fetchLastWriteTimeAttribute(),
			"topics": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "One entry per selected topic, sorted by name.",
				NestedObject:        topicsOffsetsTopicObject,
			},
			// topics_offsets_summary.go: the values a gate (and a terraform test mock) needs without a loop.
			"message_counts":      messageCountsAttribute,
			"topics_with_records": topicsWithRecordsAttribute,
			"last_write_time":     topicsLastWriteTimeAttribute,
		},
	}
}

func (d *TopicsOffsetsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData(req, resp)
}

func (d *TopicsOffsetsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	nameRegex := configValue[types.String](ctx, req.Config, "name_regex", &resp.Diagnostics)
	includeInternal := configValue[types.Bool](ctx, req.Config, "include_internal", &resp.Diagnostics)
	isolationLevel := configValue[types.String](ctx, req.Config, "isolation_level", &resp.Diagnostics)
	lastWrite := configValue[types.Bool](ctx, req.Config, "fetch_last_write_time", &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !clientKnown(d.data, &resp.Diagnostics) {
		return
	}
	ctx = withReadTimeout(ctx, req.Config, &resp.Diagnostics) // read_timeout.go
	q := kafkaclient.TopicsOffsetsRequest{IncludeInternal: includeInternal.ValueBool(), Isolation: isolation(isolationLevel),
		LastWrite: lastWrite.ValueBool()}
	q.Name = wholeMatch(nameRegex, path.Root("name_regex"), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, rl := startReadLog(ctx, d.data) // read_log.go: the read's requests, at DEBUG and TRACE
	defer rl.end(&resp.Diagnostics)
	res, unseen, err := d.data.client.TopicsOffsets(ctx, q)
	if err != nil {
		addReadError(&resp.Diagnostics, err, topicsOffsetsErrorAttrs, d.data.principal)
		return
	}
	warnTopicsUnseen(&resp.Diagnostics, unseen, "topics, message_counts and topics_with_records")
	topics := make([]topicsOffsetsTopic, len(res))
	for i, t := range res {
		topics[i].TopicOffsets = t
		for _, p := range t.Partitions {
			topics[i].messageCount = sumOffsets(topics[i].messageCount, p.Latest-p.Earliest, "message_count of topic "+t.Name, &resp.Diagnostics)
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	tflog.Debug(ctx, "read topics offsets", map[string]any{"name_regex": nameRegex.ValueString(), "topics": len(res)})
	values := topicsSummary(topics)
	values["topics"] = tfNestedList(topicsOffsetsTopicType, topics, topicsOffsetsTopicAttrs)
	setState(&resp.State, values)
}
