# "Don't delete this topic until it is drained": nobody has written to it for a week, no
# transaction is open on it, and every group that reads it has read everything (or none is left).
# Drained means consumed, not empty: records every reader has read may stay until retention takes
# them. (To require an empty topic instead, gate on kafka_topic_offsets' message_count == 0.)
# Preconditions are not evaluated when a resource is destroyed, and a resource removed from the
# configuration takes its lifecycle block with it. So the gate lives on a resource that stays:
# retiring the topic is a variable, and the gate's precondition refuses the plan that would delete
# a topic that is not drained. Once the deletion is applied, remove the data sources and the gate:
# the topic they read is gone.
terraform {
  required_version = ">= 1.5" # plantimestamp()
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

# Who writes: the last write (every producer, idempotent or not) and the open transactions.
data "kafka_topic_producers" "audit" {
  topics = [var.topic]
}

# Whether it is empty: a last_write_time of null is no write only where no record is left.
data "kafka_topic_offsets" "audit" {
  topic = var.topic
}

# Who reads: every group with commits, share state or members on it, and whether it is done.
data "kafka_consumer_groups" "audit_readers" {
  topics = [var.topic]
}

locals {
  last_write = data.kafka_topic_producers.audit.last_write_time
  written_recently = (local.last_write == null
    ? data.kafka_topic_offsets.audit.message_count > 0 # records, but none with a known time: not quiet
  : timecmp(local.last_write, timeadd(plantimestamp(), "-${var.quiet_for}")) > 0)
  open_transactions = data.kafka_topic_producers.audit.open_transactions
  unread            = [for g in data.kafka_consumer_groups.audit_readers.groups : g.group_id if !g.caught_up]
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
      condition     = !var.retire_audit_topic || (!local.written_recently && local.open_transactions == 0 && length(local.unread) == 0)
      error_message = "Topic ${var.topic} is not drained: last write ${coalesce(local.last_write, "unknown")} (nothing may be written for ${var.quiet_for}), ${local.open_transactions} open transaction(s), groups still reading: ${jsonencode(local.unread)}."
    }
  }
}
