# "Can we retire the legacy topics?" One read judges every topic of a prefix: nobody wrote to any
# of them in the last week (the largest record timestamp, deleted records' included, and each
# producer's last write), no transaction is open on them, and every group that reads them
# (commits, share-partition state, or members assigned their partitions now) has caught up.
# Drained means consumed: records every reader has read may stay until retention takes them. The
# gate reads one top-level value, drained, which is true only when the read proves it: a
# terraform test mock sets it, and a bare mock (false) refuses.
terraform {
  required_version = ">= 1.5" # check blocks
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {}

variable "retire_legacy_topics" {
  type    = bool
  default = false
}

data "kafka_topics_drained" "legacy" {
  name_regex = "legacy\\..*" # whole names: legacy.a, legacy.b; not prelegacy.a
  quiet_for  = "168h"
}

resource "terraform_data" "legacy_retirement_gate" {
  input = var.retire_legacy_topics

  lifecycle {
    precondition {
      condition     = !var.retire_legacy_topics || data.kafka_topics_drained.legacy.drained
      error_message = "Not yet: ${join("; ", data.kafka_topics_drained.legacy.not_drained)}."
    }
  }
}

output "legacy_readers" {
  value = data.kafka_topics_drained.legacy.group_ids
}

# No legacy topic left passes the gate (there is nothing to retire), as a wrong cluster would:
# say it on every plan.
check "legacy_topics_left" {
  assert {
    condition     = length(data.kafka_topics_drained.legacy.selected_topics) > 0
    error_message = "No topic matches legacy\\..* on this cluster: if this configuration did not retire them, check bootstrap_servers (a wrong cluster reads every topic as retired)."
  }
}
