package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// The top-level values of kafka_topics_offsets: which selected topics still hold records and when
// any was last written, so that a gate reads one value and a terraform test mock sets one (a mock
// cannot set a nested list: hashicorp/terraform#37939).

var (
	messageCountsAttribute = schema.MapAttribute{ElementType: types.Int64Type, Computed: true,
		MarkdownDescription: "Each selected topic's `message_count`, by topic name: its keys are the selected topics " +
			"(`keys(…message_counts)` for another data source's `topics`). `{}` when no topic is selected."}
	topicsWithRecordsAttribute = schema.ListAttribute{ElementType: types.StringType, Computed: true,
		MarkdownDescription: "The selected topics whose `message_count` is above 0, sorted: those that still hold " +
			"records (or, compacted or transactional, may). Gate a drained prefix on `length(…topics_with_records) == 0`."}
	topicsLastWriteTimeAttribute = schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{},
		MarkdownDescription: "The latest `last_write_time` of every selected topic, with `fetch_last_write_time = true` " +
			"(RFC 3339). `null` without the opt-in, where no topic holds a record with a timestamp, and where a topic " +
			"that holds records has a `last_write_time` of `null`: nobody can vouch that it is quiet, so a gate reads " +
			"`null` with `topics_with_records` not empty as \"written, time unknown\"."}
)

// messageCountsType is the Terraform type of message_counts.
var messageCountsType = tftypes.Map{ElementType: tftypes.Number}

// topicsSummary is the top-level values of a read of topics.
func topicsSummary(topics []topicsOffsetsTopic) tfAttrs {
	counts := make(map[string]tftypes.Value, len(topics))
	withRecords := make([]string, 0)
	var last *int64
	unknown := false
	for _, t := range topics {
		counts[t.Name] = tfInt64(t.messageCount)
		if t.messageCount > 0 {
			withRecords = append(withRecords, t.Name)
		}
		lw := kafkaclient.LastWriteMs(t.Partitions)
		unknown = unknown || (lw == nil && t.messageCount > 0)
		if lw != nil && (last == nil || *lw > *last) {
			last = lw
		}
	}
	if unknown {
		last = nil
	}
	return tfAttrs{
		"message_counts":      tftypes.NewValue(messageCountsType, counts),
		"topics_with_records": tfStrings(withRecords),
		"last_write_time":     tfTime(last),
	}
}
