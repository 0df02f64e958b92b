# "Don't delete this topic until it is drained": nobody has written to it for a week, no
# transaction is open on it, and every group that reads it has read everything (or none is left).
# Drained means consumed, not empty: records every reader has read may stay until retention takes
# them. (To require an empty topic instead, gate on kafka_topic_offsets' exists and
# message_count == 0.)
# Preconditions are not evaluated when a resource is destroyed, and a resource removed from the
# configuration takes its lifecycle block with it. So the gate lives on a resource that stays:
# retiring the topic is a variable, and the gate's precondition refuses the plan that would delete
# a topic that is not drained. Once the deletion is applied, the configuration stays as it is: the
# topic reads as drained and missing, the gate has nothing left to refuse, and a check block warns,
# on every plan, that the topic does not exist (which is also what a wrong bootstrap_servers looks
# like).
terraform {
  required_version = ">= 1.5" # check blocks
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
  description = "How long nobody may have written to the topic before it is retired, as a Go duration."
  type        = string
  default     = "168h"
}

# One verdict: drained is true only when the read proves it (every writer and reader signal Kafka
# gives), so a bare terraform test mock (false) refuses too. A deleted topic reads as drained and
# is listed in missing_topics.
data "kafka_topics_drained" "audit" {
  topics    = [var.topic]
  quiet_for = var.quiet_for
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
      condition     = !var.retire_audit_topic || data.kafka_topics_drained.audit.drained
      error_message = "Topic ${var.topic} is not drained: ${join("; ", data.kafka_topics_drained.audit.not_drained)}."
    }
  }
}

# A topic that does not exist passes the gate: that is what lets the plans after its deletion
# pass. A wrong cluster reads the same, so say it on every plan.
check "audit_topic_exists" {
  assert {
    condition     = !contains(data.kafka_topics_drained.audit.missing_topics, var.topic)
    error_message = "Topic ${var.topic} does not exist on this cluster: if this configuration did not retire it, check bootstrap_servers (a wrong cluster reads every topic as retired)."
  }
}
