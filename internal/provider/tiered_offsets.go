package provider

import (
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// The tiered-storage offsets (KIP-405) of kafka_partition_offsets and kafka_topic_offsets' partitions:
// an opt-in, since each is one more ListOffsets request per leader, and the three values.

// tieredOffsetsAttribute is the opt-in.
func tieredOffsetsAttribute() schema.BoolAttribute {
	return schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "`true` also reads the tiered-storage offsets (KIP-405) `earliest_local_offset`, " +
			"`latest_tiered_offset` and `earliest_pending_upload_offset`: up to three more ListOffsets " +
			"requests per partition leader, each sent only to brokers that serve its version. A broker that " +
			"refuses one (it closes the connection at it: some Kafka-compatible services do) leaves that value " +
			"`null`, with a warning; the other offsets are read all the same. Default `false`: the three are " +
			"`null` and nothing more is asked.",
	}
}

// withTieredOffsets adds the three values to attrs, each null without the opt-in.
func withTieredOffsets(attrs map[string]schema.Attribute) map[string]schema.Attribute {
	maps.Copy(attrs, map[string]schema.Attribute{
		"earliest_local_offset": schema.Int64Attribute{
			Computed: true,
			MarkdownDescription: "With `tiered_offsets = true`: the first offset still on the leader's own disk " +
				"(ListOffsets timestamp -4, ListOffsets v8, KIP-405, Apache Kafka 3.5+). On a topic with remote " +
				"storage (`remote.storage.enable=true`), the records from `earliest_offset` up to it are in " +
				"remote storage only; on a topic without, every record is local and it equals `earliest_offset`, " +
				"as `kafka-get-offsets.sh --time -4` prints. `null` without `tiered_offsets` and on brokers " +
				"before Kafka 3.5.",
		},
		"latest_tiered_offset": schema.Int64Attribute{
			Computed: true,
			MarkdownDescription: "With `tiered_offsets = true`: the highest offset copied to remote storage " +
				"(ListOffsets timestamp -5, v9, KIP-1005, Apache Kafka 3.9+). `null` when the broker answers -1, " +
				"which `kafka-get-offsets.sh --time -5` prints as nothing: the topic has no remote storage, or " +
				"nothing was copied yet. `null` too without `tiered_offsets` and on brokers before Kafka 3.9.",
		},
		"earliest_pending_upload_offset": schema.Int64Attribute{
			Computed: true,
			MarkdownDescription: "With `tiered_offsets = true`: the first offset not yet copied to remote storage " +
				"(ListOffsets timestamp -6, v11, KIP-1023, Apache Kafka 4.2+); the records from it to " +
				"`latest_offset` are on the leader's disk only. `null` when the broker answers -1 (the topic has " +
				"no remote storage), without `tiered_offsets`, and on brokers before Kafka 4.2: Kafka 3.9 serves " +
				"ListOffsets up to v9 and answers -6 with UNSUPPORTED_VERSION, so it is not asked.",
		},
	})
	return attrs
}

// addTieredOffsets adds p's three values to the attributes of a data source's state or a
// partition's entry.
func addTieredOffsets(values tfAttrs, p kafkaclient.PartitionOffsets) tfAttrs {
	values["earliest_local_offset"] = tfInt64OrNull(p.EarliestLocal)
	values["latest_tiered_offset"] = tfInt64OrNull(p.LatestTiered)
	values["earliest_pending_upload_offset"] = tfInt64OrNull(p.EarliestPendingUpload)
	return values
}

// addMaxTimestampLocalOnlyWarning says why max_timestamp_offset is null where p has records in
// remote storage only.
func addMaxTimestampLocalOnlyWarning(diags *diag.Diagnostics, topic string, p kafkaclient.PartitionOffsets) {
	if !p.MaxTimestampLocalOnly || p.EarliestLocal == nil {
		return
	}
	diags.AddAttributeWarning(path.Root("max_timestamp_offset"), "Max timestamp unknown on a tiered partition",
		fmt.Sprintf("Topic %q partition %d holds offsets %d to %d in remote storage only, and Kafka's max timestamp "+
			"lookup (ListOffsets -3) scans local segments only (KAFKA-17552): max_timestamp_offset and max_timestamp "+
			"are null. The other offsets were read.", topic, p.Partition, p.Earliest, *p.EarliestLocal-1))
}
