# "Can we retire the legacy topics?" One read covers every topic of a prefix and when each was
# last written; another every group that reads them (commits, share-partition state, or members
# assigned their partitions now). The gate refuses the retirement while a topic was written in
# the last week or a group has not caught up (a lag; a commit outside the log; no commit where
# records wait, as for a member that reads without committing: see not_caught_up). Drained means
# consumed: records every reader has read may stay until retention takes them.
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
# topic is left.
data "kafka_consumer_groups" "legacy_readers" {
  count  = length(data.kafka_topics_offsets.legacy.topics) > 0 ? 1 : 0
  topics = [for t in data.kafka_topics_offsets.legacy.topics : t.name]
}

locals {
  readers = flatten([for r in data.kafka_consumer_groups.legacy_readers : r.groups])
  # Written in the last 7 days; or holding records none of which has a known time.
  written = [for t in data.kafka_topics_offsets.legacy.topics : t.name if(t.last_write_time == null
    ? t.message_count > 0
  : timecmp(t.last_write_time, timeadd(plantimestamp(), "-168h")) > 0)]
  lagging = [for g in local.readers : g.group_id if !g.caught_up] # caught_up: never null
}

resource "terraform_data" "legacy_retirement_gate" {
  input = var.retire_legacy_topics

  lifecycle {
    precondition {
      condition     = !var.retire_legacy_topics || (length(local.written) == 0 && length(local.lagging) == 0)
      error_message = "Not yet: topics written in the last 7 days: ${jsonencode(local.written)}; groups lagging: ${jsonencode(local.lagging)}."
    }
  }
}

output "legacy_readers" {
  value = [for g in local.readers : g.group_id]
}
