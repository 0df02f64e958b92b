package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
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

var (
	_ datasource.DataSourceWithConfigure        = &TopicProducersDataSource{}
	_ datasource.DataSourceWithConfigValidators = &TopicProducersDataSource{}
)

// TopicProducersDataSource is kafka_topic_producers: who writes to some topics, and which
// transactions hold their read_committed consumers back (KIP-664).
type TopicProducersDataSource struct {
	data *providerData
}

// NewTopicProducersDataSource is registered in KafkaProvider.DataSources.
func NewTopicProducersDataSource() datasource.DataSource { return &TopicProducersDataSource{} }

// topicProducersEmptyTopics is what `topics = []` would have meant here.
var topicProducersEmptyTopics = emptyTopics{
	meaning: "no topic would be read: \"nobody writes, no transaction is open\"",
	unset:   "a selection by name_regex",
}

// lastWriteTimeDescription is the last_write_time of a partition, a topic and the whole read.
const lastWriteTimeDescription = "The largest record timestamp, as RFC 3339 in UTC with milliseconds (ListOffsets " +
	"timestamp -3, KIP-734, Kafka 3.0+, read_uncommitted): the one signal that also sees producers without " +
	"idempotence, which leave no producer state. A producer sets a record's CreateTime itself (on a topic with " +
	"`message.timestamp.type = LogAppendTime`, the broker sets it on arrival), so a wrong client clock moves it. "

var producerObject = schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
	"producer_id": schema.Int64Attribute{Computed: true, MarkdownDescription: "The producer id (DescribeProducers, KIP-664)."},
	"producer_epoch": schema.Int64Attribute{Computed: true, MarkdownDescription: "The producer epoch of its " +
		"latest write to the partition."},
	"last_sequence": schema.Int64Attribute{Computed: true, MarkdownDescription: "The sequence number of its " +
		"latest record on the partition (idempotence), `-1` where the broker has none."},
	"last_timestamp": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{},
		MarkdownDescription: "The timestamp of its latest write to the partition, RFC 3339 in UTC with " +
			"milliseconds; `null` where the broker answers `-1`."},
	"coordinator_epoch": schema.Int64Attribute{Computed: true, MarkdownDescription: "The epoch of the " +
		"transaction coordinator that wrote its latest transaction marker here; `-1` for a producer that never " +
		"ended a transaction on the partition (an idempotent producer)."},
	"current_transaction_start_offset": schema.Int64Attribute{Computed: true, MarkdownDescription: "The first " +
		"offset of its transaction open on the partition; `null` when none is open."},
}}

var producerType = nestedObjectType(producerObject)

var producerPartitionObject = schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
	"partition": schema.Int64Attribute{Computed: true, MarkdownDescription: "Partition number."},
	"high_watermark": schema.Int64Attribute{Computed: true, MarkdownDescription: "The offset the next record " +
		"gets (ListOffsets -1, read_uncommitted)."},
	"last_stable_offset": schema.Int64Attribute{Computed: true, MarkdownDescription: "The first offset of the " +
		"oldest open transaction, or the high watermark when none is open (ListOffsets -1, read_committed), read " +
		"in one round with `high_watermark`."},
	"held_records": schema.Int64Attribute{Computed: true, MarkdownDescription: "`high_watermark − " +
		"last_stable_offset`: the offset span that read_committed consumers cannot read yet, held behind open " +
		"transactions (records of other producers among them)."},
	"last_write_time": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{},
		MarkdownDescription: lastWriteTimeDescription + "Records deleted since count (Kafka still answers their " +
			"timestamp); `null` where the partition never held a record, or holds records without a timestamp."},
	"producers": schema.ListNestedAttribute{Computed: true, NestedObject: producerObject,
		MarkdownDescription: "The idempotent and transactional producers the partition's leader keeps state for " +
			"(DescribeProducers, which needs READ on the topic), sorted by `producer_id`. Kafka forgets a producer " +
			"`producer.id.expiration.ms` (1 day by default) after its last write, and never lists producers " +
			"without idempotence."},
}}

var producerPartitionType = nestedObjectType(producerPartitionObject)

var producerTopicObject = schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
	"name": schema.StringAttribute{Computed: true, MarkdownDescription: "Topic name."},
	"last_write_time": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{},
		MarkdownDescription: "The latest `last_write_time` of the topic's partitions, as `kafka_topics_offsets` gives " +
			"it: `null` when none holds a record, and where a partition that holds records has a `last_write_time` " +
			"of `null`: nobody can vouch that the topic is quiet."},
	"active_producers": schema.Int64Attribute{Computed: true, MarkdownDescription: "How many distinct " +
		"`producer_id`s the topic's partitions list."},
	"open_transactions": schema.Int64Attribute{Computed: true, MarkdownDescription: "How many entries of " +
		"`transactions` are open on a partition of the topic."},
	"hanging_transactions": schema.Int64Attribute{Computed: true, MarkdownDescription: "How many entries of " +
		"`transactions` hang on a partition of the topic."},
	"held_records": schema.Int64Attribute{Computed: true, MarkdownDescription: "The sum of the partitions' " +
		"`held_records`: an offset span, not a record count."},
	"partitions": schema.ListNestedAttribute{Computed: true, NestedObject: producerPartitionObject,
		MarkdownDescription: "One entry per partition, sorted by `partition`."},
}}

var producerTopicType = nestedObjectType(producerTopicObject)

var openPartitionObject = schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
	"topic":     schema.StringAttribute{Computed: true, MarkdownDescription: "Topic name."},
	"partition": schema.Int64Attribute{Computed: true, MarkdownDescription: "Partition number."},
	"start_offset": schema.Int64Attribute{Computed: true, MarkdownDescription: "The first offset of the " +
		"transaction on the partition (DescribeProducers' `current_transaction_start_offset`)."},
}}

var openPartitionType = nestedObjectType(openPartitionObject)

var transactionObject = schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
	"transactional_id": schema.StringAttribute{Computed: true, MarkdownDescription: "The transactional id a " +
		"coordinator lists for the producer id (ListTransactions, sent to every broker); `null` when none " +
		"lists it: the transaction hangs, or its id is hidden from the provider's principal, which needs " +
		"DESCRIBE on the TransactionalId."},
	"producer_id":    schema.Int64Attribute{Computed: true, MarkdownDescription: "The producer id (DescribeProducers)."},
	"producer_epoch": schema.Int64Attribute{Computed: true, MarkdownDescription: "The producer epoch of the open transaction."},
	"state": schema.StringAttribute{Computed: true, MarkdownDescription: "The transaction's state as its " +
		"coordinator says (DescribeTransactions): `Ongoing`, `PrepareCommit`, `PrepareAbort`, `CompleteCommit`, " +
		"`CompleteAbort`, `Empty`, `PrepareEpochFence` or `Dead`; `null` when no coordinator lists it."},
	"start_time": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{},
		MarkdownDescription: "When the coordinator's transaction of the transactional id started " +
			"(DescribeTransactions), RFC 3339 in UTC with milliseconds, where `state` is open: `Ongoing`, " +
			"`PrepareCommit` or `PrepareAbort`. `null` in every other state, where the coordinator holds no open " +
			"transaction (after `CompleteCommit` or `CompleteAbort` it still answers the ended one's start), and " +
			"when no coordinator lists it."},
	"timeout_ms": schema.Int64Attribute{Computed: true, MarkdownDescription: "The transaction timeout the " +
		"producer asked for (`transaction.timeout.ms`), in milliseconds; `null` when no coordinator lists it."},
	"partitions": schema.ListNestedAttribute{Computed: true, NestedObject: openPartitionObject,
		MarkdownDescription: "The partitions of the selected topics where the transaction is open, sorted by topic " +
			"and partition."},
	"hanging": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether it hangs on one of its " +
		"partitions, by KIP-664's rule as `kafka-transactions.sh find-hanging` applies it: its coordinator does " +
		"not hold it with that partition, so no marker will end it there; one its coordinator holds never hangs, " +
		"however long past `timeout_ms` (the coordinator aborts it itself). No clock enters the rule: where " +
		"find-hanging skips producers that wrote within `--max-transaction-timeout` (by its host's clock), the " +
		"provider reads the partition again after the coordinators answered, and a transaction no longer open " +
		"there ended meanwhile. A hanging transaction holds read_committed consumers back until an operator " +
		"aborts it (`kafka-transactions.sh abort`); the cases are under \"How it reads\"."},
	"hanging_reason": schema.StringAttribute{Computed: true, MarkdownDescription: "Why it hangs, each " +
		"reason after the partitions it holds for (`topic/partition, ...: reason`, joined by `; `); `null` when " +
		"`hanging` is `false`."},
}}

var transactionType = nestedObjectType(transactionObject)

// lastWriteTimesType is the Terraform type of last_write_times.
var lastWriteTimesType = tftypes.Map{ElementType: tftypes.String}

func (d *TopicProducersDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_topic_producers"
}

func (d *TopicProducersDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{datasourcevalidator.ExactlyOneOf(path.MatchRoot("topics"), path.MatchRoot("name_regex"))}
}

func (d *TopicProducersDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Who writes to some topics, and which transactions hold their read_committed " +
			"consumers back: each partition's producers and last write, and the open transactions, hanging or not " +
			"(KIP-664, Kafka 3.0+).",
		Attributes: map[string]schema.Attribute{
			"timeout": readTimeoutAttribute(""),
			"topics": schema.SetAttribute{
				ElementType: types.StringType,
				CustomType:  newTopicSetType(), // topic_set_type.go
				Optional:    true,
				MarkdownDescription: "The topics to read, each of which must exist; exactly one of `topics` and " +
					"`name_regex`. An empty set is an error (`Empty topics set`).",
				Validators: topicSetValidators(topicProducersEmptyTopics),
			},
			"name_regex": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "An RE2 regular expression (Go's `regexp` syntax) that the **whole** topic name " +
					"must match, as in `kafka_topics_offsets`; Kafka's internal topics are never selected. A pattern " +
					"that matches no topic the principal may DESCRIBE is an error (`Topic not found`), never an " +
					"empty answer.",
				Validators: []validator.String{wholeMatchValidator{}},
			},
			"selected_topics": schema.ListNestedAttribute{Computed: true, NestedObject: producerTopicObject,
				MarkdownDescription: "One entry per selected topic, sorted by name."},
			"transactions": schema.ListNestedAttribute{Computed: true, NestedObject: transactionObject,
				MarkdownDescription: "One entry per transaction (producer id and epoch) open on a partition of the " +
					"selected topics, sorted by `transactional_id` (`null` first), then `producer_id`."},
			"last_write_time": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{},
				MarkdownDescription: "The latest `last_write_time` of every selected topic; `null` when none " +
					"holds a record, and where one that holds records has a `last_write_time` of `null`."},
			"last_write_times": schema.MapAttribute{Computed: true, ElementType: timetypes.RFC3339Type{},
				MarkdownDescription: "Each selected topic's `last_write_time`, by topic name (a `null` value " +
					"where the topic's last write is not known), for a check or a `terraform test` mock that needs no loop."},
			"open_transactions": schema.Int64Attribute{Computed: true, MarkdownDescription: "How many " +
				"entries `transactions` has."},
			"hanging_transactions": schema.Int64Attribute{Computed: true, MarkdownDescription: "How many " +
				"entries of `transactions` hang: gate on `hanging_transactions == 0`."},
			"held_records": schema.Int64Attribute{Computed: true, MarkdownDescription: "The sum of every " +
				"selected partition's `held_records`: an offset span held behind open transactions."},
		},
	}
}

func (d *TopicProducersDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData(req, resp)
}

func (d *TopicProducersDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	topics := configValue[topicSetValue](ctx, req.Config, "topics", &resp.Diagnostics)
	nameRegex := configValue[types.String](ctx, req.Config, "name_regex", &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !clientKnown(d.data, &resp.Diagnostics) {
		return
	}
	ctx = withReadTimeout(ctx, req.Config, &resp.Diagnostics) // read_timeout.go
	var q kafkaclient.TopicProducersRequest
	q.Name = wholeMatch(nameRegex, path.Root("name_regex"), &resp.Diagnostics)
	q.Topics = topicSet(ctx, topics.SetValue, topicProducersEmptyTopics, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	selector := path.Root("topics")
	if q.Name != nil {
		selector = path.Root("name_regex")
	}
	ctx, rl := startReadLog(ctx, d.data) // read_log.go: the read's requests, at DEBUG and TRACE
	defer rl.end(&resp.Diagnostics)
	res, err := d.data.client.TopicProducers(ctx, q)
	if err != nil {
		addProducersReadError(&resp.Diagnostics, err, selector, d.data.principal)
		return
	}
	warnTopicsUnseen(&resp.Diagnostics, res.Unseen, "selected_topics, transactions and their counts")
	state := topicProducersState(res, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	tflog.Debug(ctx, "read topic producers", map[string]any{"topics": len(res.Topics), "transactions": len(res.Transactions)})
	setState(&resp.State, state)
}

// addProducersReadError is addReadError with the two errors only this data source meets: a
// pattern that selects nothing, and DescribeProducers refused for want of READ on a topic.
func addProducersReadError(diags *diag.Diagnostics, err error, selector path.Path, who principal) {
	var (
		noMatch *kafkaclient.NoTopicMatchError
		broker  *kafkaclient.BrokerError
	)
	switch {
	case errors.As(err, &noMatch):
		addErrorAt(diags, selector, "Topic not found", err.Error()+". A selection of no topic would say that "+
			"nobody writes: check the pattern, and that the provider's principal may DESCRIBE the topics.")
	case errors.As(err, &broker) && broker.Op == kafkaclient.DescribeProducersOp &&
		broker.Code == kafkaclient.TopicAuthorizationFailed:
		addErrorAt(diags, selector, "Kafka broker refused the request", fmt.Sprintf("%s. DescribeProducers "+
			"needs the ACL operation READ on topic %q, where the offset reads need only DESCRIBE: grant %s "+
			"READ on the topic (%s).", err, broker.Topic, who, who.grant("Read", "--topic "+broker.Topic)))
	default:
		addReadError(diags, err, readErrorAttrs{topic: selector}, who)
	}
}

// topicProducersState is the read's computed attributes.
func topicProducersState(res kafkaclient.TopicProducers, diags *diag.Diagnostics) tfAttrs {
	var (
		held     int64
		hanging  int64
		times    = make(map[string]tftypes.Value, len(res.Topics))
		topicsTF = make([]tftypes.Value, len(res.Topics))
	)
	for i, t := range res.Topics {
		var topicHeld int64
		partitions := make([]tftypes.Value, len(t.Partitions))
		for j, p := range t.Partitions {
			topicHeld = sumOffsets(topicHeld, p.HighWatermark-p.LastStableOffset, "held_records of topic "+t.Name, diags)
			partitions[j] = tftypes.NewValue(producerPartitionType, producerPartitionAttrs(p))
		}
		held = sumOffsets(held, topicHeld, "held_records", diags)
		lw := t.LastWrite()
		times[t.Name] = tfTime(lw)
		topicsTF[i] = tftypes.NewValue(producerTopicType, map[string]tftypes.Value{
			"name":                 tfString(t.Name),
			"last_write_time":      tfTime(lw),
			"active_producers":     tfInt64(int64(t.ActiveProducers)),
			"open_transactions":    tfInt64(int64(t.OpenTransactions)),
			"hanging_transactions": tfInt64(int64(t.HangingTransactions)),
			"held_records":         tfInt64(topicHeld),
			"partitions":           tftypes.NewValue(tftypes.List{ElementType: producerPartitionType}, partitions),
		})
	}
	for _, tx := range res.Transactions {
		if tx.Hanging {
			hanging++
		}
	}
	return tfAttrs{
		"selected_topics":      tftypes.NewValue(tftypes.List{ElementType: producerTopicType}, topicsTF),
		"transactions":         tfNestedList(transactionType, res.Transactions, transactionAttrs),
		"last_write_time":      tfTime(kafkaclient.LastWrite(res.Topics)),
		"last_write_times":     tftypes.NewValue(lastWriteTimesType, times),
		"open_transactions":    tfInt64(int64(len(res.Transactions))),
		"hanging_transactions": tfInt64(hanging),
		"held_records":         tfInt64(held),
	}
}

func producerPartitionAttrs(p kafkaclient.PartitionWriters) map[string]tftypes.Value {
	return map[string]tftypes.Value{
		"partition":          tfInt64(int64(p.Partition)),
		"high_watermark":     tfInt64(p.HighWatermark),
		"last_stable_offset": tfInt64(p.LastStableOffset),
		"held_records":       tfInt64(p.HighWatermark - p.LastStableOffset),
		"last_write_time":    tfTime(p.MaxTimestamp),
		"producers":          tfNestedList(producerType, p.Producers, producerAttrs),
	}
}

func producerAttrs(p kafkaclient.ActiveProducer) tfAttrs {
	return tfAttrs{
		"producer_id":                      tfInt64(p.ProducerID),
		"producer_epoch":                   tfInt64(int64(p.ProducerEpoch)),
		"last_sequence":                    tfInt64(int64(p.LastSequence)),
		"last_timestamp":                   tfTime(p.LastTimestamp),
		"coordinator_epoch":                tfInt64(int64(p.CoordinatorEpoch)),
		"current_transaction_start_offset": tfInt64OrNull(p.CurrentTxnStartOffset),
	}
}

func transactionAttrs(tx kafkaclient.OpenTransaction) tfAttrs {
	return tfAttrs{
		"transactional_id": tfStringOrNull(tx.TransactionalID),
		"producer_id":      tfInt64(tx.ProducerID),
		"producer_epoch":   tfInt64(int64(tx.ProducerEpoch)),
		"state":            tfStringOrNull(tx.State),
		"start_time":       tfTime(tx.StartTime),
		"timeout_ms":       tfInt64OrNull(tx.TimeoutMs),
		"partitions":       tfNestedList(openPartitionType, tx.Partitions, openPartitionAttrs),
		"hanging":          tfBool(tx.Hanging),
		"hanging_reason":   tfStringOrNull(tx.Why),
	}
}

func openPartitionAttrs(p kafkaclient.OpenPartition) tfAttrs {
	return tfAttrs{
		"topic":        tfString(p.Topic),
		"partition":    tfInt64(int64(p.Partition)),
		"start_offset": tfInt64(p.StartOffset),
	}
}
