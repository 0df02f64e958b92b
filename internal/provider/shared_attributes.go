package provider

import (
	"context"
	"fmt"
	"math"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// Attributes that several data sources share, with one description each, and the conversions of
// their values. The timestamp attribute is in timestamps.go.

// maxTopicNameLength is Kafka's limit on topic names (Topic.MAX_NAME_LENGTH).
const maxTopicNameLength = 249

// topicNameValidators are Kafka's rules for topic names (org.apache.kafka.common.internals.Topic).
var topicNameValidators = []validator.String{
	stringvalidator.LengthBetween(1, maxTopicNameLength),
	stringvalidator.RegexMatches(regexp.MustCompile(`^[a-zA-Z0-9._-]+$`),
		"must use only the characters a-z, A-Z, 0-9, '.', '_' and '-' (Kafka's rule for topic names)"),
	stringvalidator.NoneOf(".", ".."),
}

// topicAttribute is the topic argument of the data sources that read one topic.
func topicAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Required: true,
		MarkdownDescription: fmt.Sprintf("Name of the topic: 1 to %d characters of `a-z A-Z 0-9 . _ -`, and not "+
			"`.` or `..` (Kafka's rules). Internal topics such as `__consumer_offsets` are readable by name.",
			maxTopicNameLength),
		Validators: topicNameValidators,
	}
}

// partitionCountAttribute is a topic's computed partition count.
func partitionCountAttribute() schema.Int64Attribute {
	return schema.Int64Attribute{Computed: true, MarkdownDescription: "How many partitions the topic has (Metadata API)."}
}

// topicSetValidators apply the topic-name rules to every element of a topics argument, and
// refuse an empty set (empty says what it would have meant).
func topicSetValidators(empty emptyTopics) []validator.Set {
	return []validator.Set{setvalidator.ValueStringsAre(topicNameValidators...), empty}
}

// topicSet is an optional topics argument's elements: nil when unset. An empty set, which only
// reaches a read when it was unknown while planning, is refused as the validator refuses it.
func topicSet(ctx context.Context, v basetypes.SetValue, empty emptyTopics, diags *diag.Diagnostics) []string {
	if v.IsNull() {
		return nil
	}
	topics := []string{}
	diags.Append(v.ElementsAs(ctx, &topics, false)...)
	if len(topics) == 0 {
		empty.refuse(path.Root("topics"), diags)
	}
	return topics
}

// emptyTopics refuses `topics = []`: a selection of nothing reads nothing, and the figures of
// nothing (a total lag of 0, no lagging group) satisfy a gate without the cluster having said
// anything. Such a set usually comes from an upstream expression (a regex, a filter, a variable)
// that matched nothing. meaning says what the empty selection would have answered; unset says
// what to write instead.
type emptyTopics struct{ meaning, unset string }

func (e emptyTopics) Description(context.Context) string {
	return "must name at least one topic (leave it unset for " + e.unset + ")"
}

func (e emptyTopics) MarkdownDescription(ctx context.Context) string { return e.Description(ctx) }

func (e emptyTopics) ValidateSet(_ context.Context, req validator.SetRequest, resp *validator.SetResponse) {
	if !req.ConfigValue.IsNull() && !req.ConfigValue.IsUnknown() && len(req.ConfigValue.Elements()) == 0 {
		e.refuse(req.Path, &resp.Diagnostics)
	}
}

func (e emptyTopics) refuse(p path.Path, diags *diag.Diagnostics) {
	diags.AddAttributeError(p, "Empty topics set", fmt.Sprintf("topics is an empty set: it selects no topic, so "+
		"%s, and a gate on these figures would pass without the cluster having said anything. Name at least one "+
		"topic, or leave topics unset for %s. An empty set usually comes from an upstream expression (a regex, a "+
		"filter, a variable) that matched nothing: check it, or guard this data source with count.", e.meaning, e.unset))
}

const (
	readUncommitted = "read_uncommitted"
	readCommitted   = "read_committed"
)

func isolationLevelAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "`read_uncommitted` (the default, also when unset, which state shows as `null`) or " +
			"`read_committed`: the ListOffsets isolation " +
			"level, which decides what the latest offset is. Under `read_uncommitted` it is the high watermark, " +
			"the offset the next record gets. Under `read_committed` it is the last stable offset: the first " +
			"offset of the oldest open transaction, or the high watermark when no transaction is open.",
		Validators: []validator.String{stringvalidator.OneOf(readUncommitted, readCommitted)},
	}
}

func isolation(v types.String) kafkaclient.Isolation {
	if v.ValueString() == readCommitted {
		return kafkaclient.ReadCommitted
	}
	return kafkaclient.ReadUncommitted
}

// sumOffsets adds offset spans or lags, refusing a sum beyond int64 (a broker answering offsets
// near 2^63 would otherwise wrap it negative).
func sumOffsets(total, v int64, attr string, diags *diag.Diagnostics) int64 {
	if v > math.MaxInt64-total {
		addOffsetsOverflow(diags, attr)
		return total
	}
	return total + v
}

// addOffsetsOverflow reports a sum of offsets (attr names it) beyond int64.
func addOffsetsOverflow(diags *diag.Diagnostics, attr string) {
	diags.AddError("Offsets out of range", fmt.Sprintf("The %s does not fit in a 64-bit integer: the broker "+
		"answered offsets near 2^63, which no real partition reaches.", attr))
}

// uncommittedPartitionsDescription is the uncommitted_partitions attribute of the group data sources.
const uncommittedPartitionsDescription = "How many partitions of these topics the group's members own now " +
	"that hold records and have no commit: a group just deployed, one with auto-commit off, or one that keeps " +
	"its offsets outside Kafka (Flink, Spark). Where it starts reading there (`auto.offset.reset`) is not in " +
	"the cluster, so its lag is unknown and `total_lag` is `null`. A partition without records counts as no " +
	"lag: the group starts there with none, wherever it starts."

// totalLagRule opens the total_lag attribute of the group data sources (kafkaclient/verdict.go's
// rule): one sentence, so both say the same of one group.
const totalLagRule = "The sum over the partitions read of `high watermark − committed offset` where the commit " +
	"lies inside the log, in offsets (transaction markers count), as `kafka-consumer-groups.sh` counts LAG " +
	"whatever the isolation level: the positive `lag`s under `read_uncommitted`, and under `read_committed` also " +
	"the records held behind an open transaction past the last stable offset, where `lag` stops, so that it is 0 " +
	"only where nothing waits."

// caughtUpDescription and notCaughtUpDescription are the verdict attributes of the group data
// sources (kafkaclient/verdict.go): one rule, so both say the same of one group.
const (
	caughtUpDescription = "The verdict to gate on, never `null`: `true` only when every partition of the " +
		"topics read has a commit at the high watermark (a share group: share-partition lag 0), or has no commit " +
		"and holds no record, and the read saw every topic it covers. Anything else is `false`, each reason in " +
		"`not_caught_up`: a `lag` above 0, records held behind an open transaction (under `read_committed`), a " +
		"commit outside the log, no commit where records wait, no partition at all, or, without `topics`, a topic " +
		"of the cluster the principal may not DESCRIBE (or the principal may not DESCRIBE the cluster, so the read " +
		"cannot tell), since Kafka leaves such topics out of the read; the guide \"What caught up means\" has every case."
	notCaughtUpDescription = "Why `caught_up` is `false`, one line per reason: first `topics not seen: ` where the " +
		"read could not see every topic, then one per partition, sorted by topic then partition, each starting " +
		"with `topic/partition: ` (one line starting `no partition: ` where none was read); empty (`[]`, never " +
		"`null`) when it is `true`. Safe to interpolate in an `error_message`: `join(\"; \", ….not_caught_up)`."
)

// groupStateDescription is the state of a group in both group data sources, read by one rule
// (kafkaclient's group_state.go) so that they say the same of one group.
const groupStateDescription = "The group's state, by one rule in both group data sources so that one group " +
	"reads the same in each: DescribeGroups' answer for a classic group it describes, ListGroups' (v4+, Kafka " +
	"2.6+) otherwise. Apache Kafka gives `Stable`, `PreparingRebalance`, `CompletingRebalance` (classic groups), " +
	"`Assigning`, `Reconciling` (consumer-protocol and streams groups), `NotReady` (streams groups), `Empty` (no " +
	"members, offsets kept) and `Dead`; `Unknown` where the broker says so and no DescribeGroups answer names the " +
	"state (some Kafka-compatible services list every group so; gate on `caught_up`, not on `state`). `null` " +
	"where the broker does not say (ListGroups before v4)."
