package provider

import (
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// The optional lookups that a partition's leader did not answer (kafkaclient's
// PartitionOffsets.Unanswered): their attributes stay null, with a warning that says which request
// and why, and the other offsets are read all the same.

// lookupAttributes are the attributes each optional lookup gives, as a warning names them.
var lookupAttributes = map[kafkaclient.LookupName]string{
	kafkaclient.LookupMaxTimestamp:          "max_timestamp_offset and max_timestamp are",
	kafkaclient.LookupEarliestLocal:         "earliest_local_offset is",
	kafkaclient.LookupLatestTiered:          "latest_tiered_offset is",
	kafkaclient.LookupEarliestPendingUpload: "earliest_pending_upload_offset is",
}

// partitionLookupAttribute is the attribute of kafka_partition_offsets a warning about an
// unanswered lookup points at.
func partitionLookupAttribute(l kafkaclient.LookupName) path.Path {
	switch l {
	case kafkaclient.LookupEarliestLocal:
		return path.Root("earliest_local_offset")
	case kafkaclient.LookupLatestTiered:
		return path.Root("latest_tiered_offset")
	case kafkaclient.LookupEarliestPendingUpload:
		return path.Root("earliest_pending_upload_offset")
	}
	return path.Root("max_timestamp_offset")
}

// warnUnanswered warns, once per cause, of the optional lookups the partitions' leaders did not
// answer, on the attribute attr gives. A tiered-storage lookup that a broker is too old to be
// asked is left out: that null is documented, and expected of every broker before Kafka 3.5.
func warnUnanswered(diags *diag.Diagnostics, partitions []kafkaclient.PartitionOffsets, attr func(kafkaclient.LookupName) path.Path) {
	seen := map[string]bool{}
	for _, p := range partitions {
		for _, u := range p.Unanswered {
			refused := errors.As(u.Err, new(*kafkaclient.RefusedError))
			if !refused && u.Lookup != kafkaclient.LookupMaxTimestamp {
				continue
			}
			detail := u.Err.Error() + ". " + lookupAttributes[u.Lookup] + " null; the other offsets were read."
			if seen[detail] {
				continue
			}
			seen[detail] = true
			summary := "Unsupported by this broker"
			if refused {
				summary = "Refused by this broker"
			}
			diags.AddAttributeWarning(attr(u.Lookup), summary, detail)
		}
	}
}
