package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// The time-lag attributes of the group data sources (kafkaclient's time_lag.go is the rule),
// written once: fetch_timestamps, next_record_timestamp, time_lag_ms, max_time_lag_ms.

func fetchTimestampsAttribute() schema.BoolAttribute {
	return schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "Also read how old the oldest unread record is: for every partition " +
			"with a commit below the latest offset, a Fetch reads the record at the committed " +
			"offset (or the first after it that still exists and that `isolation_level` shows) " +
			"for its timestamp, without joining a group, committing, or keeping any key or " +
			"value. Costs about one Fetch request per partition leader and needs the ACL " +
			"operation **READ** on the topics, not only DESCRIBE. Default `false`: no Fetch at " +
			"all, and the time attributes are `null`.",
	}
}

// nextRecordTimestampAttribute is next_record_timestamp of a partition entry.
var nextRecordTimestampAttribute = schema.StringAttribute{
	Computed: true, CustomType: timetypes.RFC3339Type{},
	MarkdownDescription: "With `fetch_timestamps`: the timestamp of the first record a consumer of the group " +
		"reads next under `isolation_level` (Fetch at the committed offset), as RFC 3339 in UTC with " +
		"milliseconds (`\"2026-11-01T12:05:00.250Z\"`): the producer's CreateTime, or the broker's time of " +
		"append on a topic with `message.timestamp.type=LogAppendTime`. For a share group, the record at the " +
		"share-partition start offset, which Kafka may keep behind records already acknowledged: the record " +
		"delivered next is at most this old (warning: `Share group time lag is an upper bound`); `null` where " +
		"its `lag` is 0 (nothing waits; `time_lag_ms` is 0). " +
		"`null` when the partition is caught up " +
		"(nothing to read below the latest offset), has no commit, or the commit lies outside the log (a " +
		"consumer resets there per its `auto.offset.reset`, to the log start or to its end: which record it " +
		"reads next is not in the cluster); and " +
		"when that record has no timestamp (written by a client older than Kafka 0.10).",
}

// timeLagMsAttribute is time_lag_ms of a partition entry.
var timeLagMsAttribute = schema.Int64Attribute{
	Computed: true,
	MarkdownDescription: "With `fetch_timestamps`: how old, in milliseconds, the oldest record " +
		"the group has not read is (the time of the read minus `next_record_timestamp`); `0` " +
		"where nothing waits: caught up, only transaction markers or aborted records after the " +
		"commit, or no commit on a partition without records. Never negative: a timestamp ahead " +
		"of the provider's clock gives `0` and the warning `Record timestamps ahead of the " +
		"clock`. `null` where the age is unknown: no commit where records wait, a commit outside " +
		"the log (the consumer resumes where its `auto.offset.reset` points), or a record " +
		"without a timestamp.",
}

// maxTimeLagMsDescription describes max_time_lag_ms, of a group (whose is said first).
const maxTimeLagMsDescription = "With `fetch_timestamps`: the largest `time_lag_ms` of the partitions read, " +
	"in milliseconds. `null` when no partition was read, and when any partition's `time_lag_ms` is `null` " +
	"(no commit where records wait, a commit past the log end, a record without a timestamp), so that a gate on it, such as " +
	"`max_time_lag_ms <= 60000`, cannot pass over a partition whose age is unknown: Terraform refuses to " +
	"compare `null`."

// nextRecordMs is the timestamp of a partition's next record in Kafka's milliseconds, nil when
// next_record_timestamp is null: none was read, or the record has none.
func nextRecordMs(p kafkaclient.GroupPartitionOffsets) *int64 {
	if p.Next == nil || p.Next.TimestampMs < 0 {
		return nil
	}
	return &p.Next.TimestampMs
}

// nextRecordTime is a partition's next_record_timestamp.
func nextRecordTime(p kafkaclient.GroupPartitionOffsets) timetypes.RFC3339 {
	return optionalTime(nextRecordMs(p))
}

// addTimeLagWarnings says why time lags read as 0 or null where the timestamps are to blame:
// records stamped later than the provider's clock, and records without a timestamp.
func addTimeLagWarnings(diags *diag.Diagnostics, group, groupType string, partitions []kafkaclient.GroupPartitionOffsets) {
	var ahead, untimed, bounded []kafkaclient.GroupPartitionOffsets
	for _, p := range partitions {
		switch {
		case p.Ahead:
			ahead = append(ahead, p)
		case p.Next != nil && p.Next.TimestampMs < 0:
			untimed = append(untimed, p)
		case groupType == kafkaclient.ShareGroup && p.Next != nil:
			bounded = append(bounded, p)
		}
	}
	if len(bounded) > 0 {
		diags.AddWarning("Share group time lag is an upper bound", fmt.Sprintf("Share group %q: Kafka does not "+
			"say which record a share group delivers next, so time_lag_ms of %d partition(s) is the age of the "+
			"record at the share-partition start offset: %s. The broker may keep the start offset behind records "+
			"already acknowledged out of order, so the record delivered next is at most this old. A gate on "+
			"max_time_lag_ms blocks on it as on a true value: it fails closed.",
			group, len(bounded), listPartitions(bounded, nextRecordFigures)))
	}
	if len(ahead) > 0 {
		diags.AddWarning("Record timestamps ahead of the clock", fmt.Sprintf("Consumer group %q: the next record "+
			"to read of %d partition(s) has a timestamp later than the provider's clock, so their time_lag_ms reads "+
			"0 although records wait (lag > 0): %s. The producer's clock runs ahead of this machine's, or the "+
			"application sets record timestamps. Gate on lag as well as on time lag.",
			group, len(ahead), listPartitions(ahead, nextRecordFigures)))
	}
	if len(untimed) > 0 {
		diags.AddWarning("Records without a timestamp", fmt.Sprintf("Consumer group %q: the next record to read "+
			"of %d partition(s) has no timestamp (-1: written by a client older than Kafka 0.10), so their "+
			"time_lag_ms and the group's max_time_lag_ms are null: %s.",
			group, len(untimed), listPartitions(untimed, nextRecordFigures)))
	}
}

// nextRecordFigures shows a partition's next record.
func nextRecordFigures(p kafkaclient.GroupPartitionOffsets) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%d (offset %d", p.Topic, p.Partition, p.Next.Offset)
	if p.Next.TimestampMs >= 0 {
		fmt.Fprintf(&b, ", timestamp %s", nextRecordTime(p).ValueString())
	}
	b.WriteString(")")
	return b.String()
}
