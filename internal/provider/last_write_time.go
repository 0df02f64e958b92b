package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
)

// The last write time of kafka_topic_offsets and kafka_topics_offsets: an opt-in, since
// it is one more ListOffsets request per partition leader, a third lookup of every partition where
// a read makes two (its cost on 100,000 partitions is in tools/bench/README.md), and the values it
// gives (kafkaclient.OffsetsRequest.LastWrite, kafkaclient.LastWriteMs).

// fetchLastWriteTimeAttribute is the opt-in.
func fetchLastWriteTimeAttribute() schema.BoolAttribute {
	return schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "`true` also reads `last_write_time`: the largest record timestamp of each partition " +
			"(ListOffsets timestamp -3, KIP-734, Kafka 3.0+), one more ListOffsets request per partition leader, " +
			"under `read_uncommitted` whatever `isolation_level` says (a record in an open transaction is a " +
			"write). It asks every partition a third time where the read asks twice: over 100,000 partitions, " +
			"measured, about a sixth more time and memory. Default `false`: `last_write_time` is " +
			"`null` and nothing more is asked.",
	}
}

// lastWriteTimeMeaning describes last_write_time, of a partition or a topic (whose is said first).
const lastWriteTimeMeaning = "with `fetch_last_write_time = true`, the largest record timestamp (RFC 3339, UTC, " +
	"milliseconds): when the last record was written, stamped by its producer (CreateTime, which any writer " +
	"sets itself) or by the broker (`message.timestamp.type=LogAppendTime`). Records deleted since " +
	"(DeleteRecords, retention) count: Kafka still answers the largest timestamp of a deleted record, and it " +
	"was a write all the same. `null` without the opt-in, where no record was ever written, and where records " +
	"without a timestamp are left: read `null` as \"not known\", not as \"never written\", where records are left."

// lastWriteTimeAttribute is last_write_time of a partition or a topic (whose, in words that
// start the first sentence).
func lastWriteTimeAttribute(whose string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{},
		MarkdownDescription: whose + ", " + lastWriteTimeMeaning}
}
