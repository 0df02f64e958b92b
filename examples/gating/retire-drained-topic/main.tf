# "Don't delete this topic until it is drained." Preconditions are not evaluated when a resource
# is destroyed, and a resource removed from the configuration takes its lifecycle block with it.
# So the gate lives on a resource that stays: retiring the topic is a variable, and the gate's
# precondition refuses the plan that would delete a topic that still holds records. Once the
# deletion is applied, remove the data source and the gate: the topic they read is gone.
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {}

variable "retire_audit_topic" {
  description = "Set to true to delete the audit topic; the plan fails while it still holds records."
  type        = bool
  default     = false
}

data "kafka_topic_offsets" "audit" {
  topic = "audit"
}

# Stands for the topic itself (for example a kafka_topic resource of a provider that manages topics).
resource "terraform_data" "audit_topic" {
  count = var.retire_audit_topic ? 0 : 1
  input = "audit"
}

resource "terraform_data" "audit_drain_gate" {
  input = var.retire_audit_topic

  lifecycle {
    precondition {
      condition     = !var.retire_audit_topic || data.kafka_topic_offsets.audit.message_count == 0
      error_message = "Topic audit still holds records (offset span ${data.kafka_topic_offsets.audit.message_count}); drain it before retiring it."
    }
  }
}
