package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

var (
	_ datasource.DataSourceWithConfigure        = &TopicsDrainedDataSource{}
	_ datasource.DataSourceWithConfigValidators = &TopicsDrainedDataSource{}
)

// TopicsDrainedDataSource is kafka_topics_drained: "may these topics go?", one verdict that every
// retirement gate reads (kafkaclient.TopicsDrained has the rule).
type TopicsDrainedDataSource struct {
	data *providerData
}

// NewTopicsDrainedDataSource is registered in KafkaProvider.DataSources.
func NewTopicsDrainedDataSource() datasource.DataSource { return &TopicsDrainedDataSource{} }

// topicsDrainedEmptyTopics is what `topics = []` would have meant here.
var topicsDrainedEmptyTopics = emptyTopics{
	meaning: "no topic would be read: \"drained\" would vouch for nothing",
	unset:   "a selection by name_regex",
}

// maxQuietFor bounds quiet_for: ten years is longer than any log keeps a timestamp.
const maxQuietFor = 10 * 365 * 24 * time.Hour

func (d *TopicsDrainedDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_topics_drained"
}

func (d *TopicsDrainedDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{datasourcevalidator.ExactlyOneOf(path.MatchRoot("topics"), path.MatchRoot("name_regex"))}
}

func (d *TopicsDrainedDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Whether some topics may be retired: `drained` is `true` only when the read proves " +
			"that nobody wrote to them within `quiet_for`, no transaction is open and every reader has caught up. " +
			"Drained means consumed, not empty.",
		Attributes: map[string]schema.Attribute{
			"timeout": readTimeoutAttribute(""),
			"topics": schema.SetAttribute{
				ElementType: types.StringType,
				CustomType:  newTopicSetType(), // topic_set_type.go
				Optional:    true,
				MarkdownDescription: "The topics to judge; exactly one of `topics` and `name_regex`. A topic that " +
					"does not exist (fresh Metadata confirms it) is drained, and listed in `missing_topics`: the " +
					"plans after its deletion pass. An empty set is an error (`Empty topics set`).",
				Validators: topicSetValidators(topicsDrainedEmptyTopics),
			},
			"name_regex": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "An RE2 regular expression (Go's `regexp` syntax) that the **whole** topic name " +
					"must match, as in `kafka_topics_offsets`; Kafka's internal topics are never selected. A pattern " +
					"that matches a topic hidden from the principal fails (`Topics hidden from the provider's " +
					"principal`); one that matches no topic reads `drained = true` with `selected_topics = []` and a " +
					"warning.",
				Validators: []validator.String{wholeMatchValidator{}},
			},
			"quiet_for": schema.StringAttribute{
				CustomType: goDurationType{},
				Required:   true,
				MarkdownDescription: "How long nobody may have written to a topic, as a Go duration such as " +
					"`\"168h\"`, from `\"0s\"` to `\"" + shortDuration(maxQuietFor) + "\"`, counted back from the time " +
					"of the read on the host that runs Terraform.",
				Validators: []validator.String{durationBetween(0, maxQuietFor)},
			},
			"drained": schema.BoolAttribute{Computed: true, MarkdownDescription: "`true` only when the read proves " +
				"every selected topic drained: no write within `quiet_for` by any signal Kafka gives (the largest " +
				"record timestamp, deleted records' included, and each producer's last write), no open transaction, " +
				"every group that reads a topic caught up, and no topic the pattern matches hidden from the principal " +
				"(the table below has each rule). `true` too where no selected topic exists; anything else is `false`, " +
				"each reason in `not_drained`."},
			"not_drained": schema.ListAttribute{ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Why `drained` is `false`, one line each, topic by topic (`<topic>: ...`), then " +
					"each group that has not caught up (`group <group_id> has not caught up: ...`); `[]` when drained."},
			"selected_topics": schema.ListAttribute{ElementType: types.StringType, Computed: true,
				MarkdownDescription: "The selected topics that exist, sorted."},
			"missing_topics": schema.ListAttribute{ElementType: types.StringType, Computed: true,
				MarkdownDescription: "The topics of `topics` that do not exist, sorted; `[]` with `name_regex`. A " +
					"wrong `bootstrap_servers` reads every topic as missing: a `check` on it says so."},
			"last_write_time": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{},
				MarkdownDescription: "The latest write to the selected topics by every signal `drained` reads (RFC " +
					"3339, UTC, milliseconds); `null` where none was ever written, and where one's time is not known."},
			"group_ids": schema.ListAttribute{ElementType: types.StringType, Computed: true,
				MarkdownDescription: "The groups that read a selected topic, sorted: those `drained` waits for."},
		},
	}
}

func (d *TopicsDrainedDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData(req, resp)
}

func (d *TopicsDrainedDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	topics := configValue[topicSetValue](ctx, req.Config, "topics", &resp.Diagnostics)
	nameRegex := configValue[types.String](ctx, req.Config, "name_regex", &resp.Diagnostics)
	quietFor := configValue[goDurationValue](ctx, req.Config, "quiet_for", &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !clientKnown(d.data, &resp.Diagnostics) {
		return
	}
	ctx = withReadTimeout(ctx, req.Config, &resp.Diagnostics) // read_timeout.go
	q := kafkaclient.DrainedRequest{QuietFor: goDuration(quietFor, &resp.Diagnostics)}
	q.Name = wholeMatch(nameRegex, path.Root("name_regex"), &resp.Diagnostics)
	q.Topics = topicSet(ctx, topics.SetValue, topicsDrainedEmptyTopics, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	selector := path.Root("topics")
	if q.Name != nil {
		selector = path.Root("name_regex")
	}
	ctx, rl := startReadLog(ctx, d.data) // read_log.go: the read's requests, at DEBUG and TRACE
	defer rl.end(&resp.Diagnostics)
	res, err := d.data.client.TopicsDrained(ctx, q, time.Now())
	if err != nil {
		addProducersReadError(&resp.Diagnostics, err, selector, d.data.principal)
		return
	}
	if res.NoMatch {
		resp.Diagnostics.AddAttributeWarning(selector, "No topic matches",
			"No topic of the cluster matches name_regex "+nameRegex.ValueString()+", so drained is true: nothing "+
				"is left to retire. If this configuration did not retire them, check the pattern and bootstrap_servers.")
	}
	tflog.Debug(ctx, "read topics drained", map[string]any{"topics": len(res.Topics), "drained": res.Drained})
	setState(&resp.State, tfAttrs{
		"drained":         tfBool(res.Drained),
		"not_drained":     tfStrings(res.NotDrained),
		"selected_topics": tfStrings(res.Topics),
		"missing_topics":  tfStrings(res.Missing),
		"last_write_time": tfTime(res.LastWriteMs),
		"group_ids":       tfStrings(res.Readers),
	})
}
