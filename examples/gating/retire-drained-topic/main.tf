# "Don't delete this topic until it is drained": nobody has written to it for a week, no
# transaction is open on it, and every group that reads it has read everything (or none is left).
# Drained means consumed, not empty: records every reader has read may stay until retention takes
# them. (To require an empty topic instead, gate on kafka_topic_offsets' message_count == 0.)
# Preconditions are not evaluated when a resource is destroyed, and a resource removed from the
# configuration takes its lifecycle block with it. So the gate lives on a resource that stays:
# retiring the topic is a variable, and the gate's precondition refuses the plan that would delete
# a topic that is not drained. Once the deletion is applied, the configuration stays as it is: the
# topic reads exists = false (allow_missing), the producers and readers are no longer read, the
# gate has nothing left to refuse, and a check block warns, on every plan, that the topic does not
# exist (which is also what a wrong bootstrap_servers looks like).
terraform {
  required_version = ">= 1.5" # plantimestamp(), check blocks
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {}

variable "topic" {
  description = "The topic to retire."
  type        = string
  default     = "audit"
}

variable "retire_audit_topic" {
  description = "Set to true to delete the topic; the plan fails while it is not drained."
  type        = bool
  default     = false
}

variable "quiet_for" {
  description = "How long nobody may have written to the topic before it is retired, as a Terraform duration."
  type        = string
  default     = "168h"
}

# Whether it exists, and whether it is empty: a last_write_time of null is no write only where no
# record is left. A deleted topic reads exists = false instead of failing the plan.
data "kafka_topic_offsets" "audit" {
  topic         = var.topic
  allow_missing = true
}

# Who writes (every producer, idempotent or not, and the open transactions) and who reads (every
# group with commits, share state or members on it): read only while the topic exists.
data "kafka_topic_producers" "audit" {
  count  = data.kafka_topic_offsets.audit.exists ? 1 : 0
  topics = [var.topic]
}

data "kafka_consumer_groups" "audit_readers" {
  count  = data.kafka_topic_offsets.audit.exists ? 1 : 0
  topics = [var.topic]
}

locals {
  exists     = data.kafka_topic_offsets.audit.exists
  producers  = one(data.kafka_topic_producers.audit) # null once the topic is gone
  readers    = one(data.kafka_consumer_groups.audit_readers)
  last_write = local.exists ? local.producers.last_write_time : null
  written_recently = (!local.exists ? false : local.last_write == null
    ? data.kafka_topic_offsets.audit.message_count > 0 # records, but none with a known time: not quiet
  : timecmp(local.last_write, timeadd(plantimestamp(), "-${var.quiet_for}")) > 0)
  open_transactions = local.exists ? local.producers.open_transactions : 0
  # Every reader has read everything, or none is left (caught_up is false when no group reads it).
  readers_done = !local.exists ? true : (local.readers.caught_up || length(local.readers.group_ids) == 0)
  unread       = local.readers_done ? [] : local.readers.not_caught_up
}

# Stands for the topic itself (for example a kafka_topic resource of a provider that manages topics).
resource "terraform_data" "audit_topic" {
  count = var.retire_audit_topic ? 0 : 1
  input = var.topic
}

resource "terraform_data" "audit_drain_gate" {
  input = var.retire_audit_topic

  lifecycle {
    precondition {
      condition     = !var.retire_audit_topic || (!local.written_recently && local.open_transactions == 0 && local.readers_done)
      error_message = "Topic ${var.topic} is not drained: last write ${coalesce(local.last_write, "unknown")} (nothing may be written for ${var.quiet_for}), ${local.open_transactions} open transaction(s), groups still reading: ${length(local.unread) == 0 ? "none" : join("; ", local.unread)}."
    }
  }
}

# A topic that does not exist passes the gate: that is what lets the plans after its deletion
# pass. A wrong cluster reads the same, so say it on every plan.
check "audit_topic_exists" {
  assert {
    condition     = data.kafka_topic_offsets.audit.exists
    error_message = "Topic ${var.topic} does not exist on this cluster: if this configuration did not retire it, check bootstrap_servers (a wrong cluster reads every topic as retired)."
  }
}
