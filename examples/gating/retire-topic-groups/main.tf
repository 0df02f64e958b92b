# "Can we retire the legacy topics?" One read covers every topic of a prefix and when any was last
# written; another every group that reads them (commits, share-partition state, or members
# assigned their partitions now). The gate refuses the retirement while a topic was written in the
# last week (or holds records none of which has a known time) or a group has not caught up (a
# lag; a commit outside the log; no commit where records wait, as for a member that reads without
# committing: see not_caught_up). Drained means consumed: records every reader has read may stay
# until retention takes them. The gate reads top-level values only (no loop over topics or
# groups), which a terraform test mock can set.
terraform {
  required_version = ">= 1.5" # plantimestamp()
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {}

variable "retire_legacy_topics" {
  type    = bool
  default = false
}

data "kafka_topics_offsets" "legacy" {
  name_regex            = "legacy\\..*" # whole names: legacy.a, legacy.b; not prelegacy.a
  fetch_last_write_time = true          # one more ListOffsets request per broker
}

# An empty topics set is an error (it would list no reader): read the groups only while a legacy
# topic is left. message_counts' keys are the selected topics.
data "kafka_consumer_groups" "legacy_readers" {
  count  = length(data.kafka_topics_offsets.legacy.message_counts) > 0 ? 1 : 0
  topics = keys(data.kafka_topics_offsets.legacy.message_counts)
}

locals {
  last_write   = data.kafka_topics_offsets.legacy.last_write_time
  with_records = data.kafka_topics_offsets.legacy.topics_with_records
  # Written in the last 7 days; or null while records are left: a topic holds records whose time
  # nobody knows, so nobody can vouch that it is quiet.
  written = (local.last_write == null
    ? length(local.with_records) > 0
  : timecmp(local.last_write, timeadd(plantimestamp(), "-168h")) > 0)
  readers = one(data.kafka_consumer_groups.legacy_readers) # null when no legacy topic is left
  # Every reader has read everything, or none is left (caught_up is false when no group reads them).
  readers_done = local.readers == null ? true : (local.readers.caught_up || length(local.readers.group_ids) == 0)
  lagging      = local.readers_done ? [] : local.readers.not_caught_up
}

resource "terraform_data" "legacy_retirement_gate" {
  input = var.retire_legacy_topics

  lifecycle {
    precondition {
      condition     = !var.retire_legacy_topics || (!local.written && local.readers_done)
      error_message = "Not yet: ${local.written ? "written in the last 7 days (last write ${coalesce(local.last_write, "unknown")}), topics holding records: ${jsonencode(local.with_records)}" : "quiet for 7 days"}; groups not caught up: ${length(local.lagging) == 0 ? "none" : join("; ", local.lagging)}."
    }
  }
}

output "legacy_readers" {
  value = local.readers == null ? [] : local.readers.group_ids
}

# No legacy topic left passes the gate (there is nothing to retire), as a wrong cluster would:
# say it on every plan.
check "legacy_topics_left" {
  assert {
    condition     = length(data.kafka_topics_offsets.legacy.message_counts) > 0
    error_message = "No topic matches legacy\\..* on this cluster: if this configuration did not retire them, check bootstrap_servers (a wrong cluster reads every topic as retired), and any warning that the read cannot tell whether topics are hidden from the provider's principal."
  }
}
