# Delete the audit topic only once it is drained: nobody has written to it for a week, no
# transaction is open on it, and every group that reads it has read everything. drained is true
# only when the read proves it, so a bare terraform test mock (false) refuses too. Once the topic
# is deleted it reads as drained (missing_topics), and the plans after the deletion pass.
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" } # not hashicorp/kafka: name it in every module that uses it
  }
}

variable "retire_audit_topic" {
  type    = bool
  default = false
}

data "kafka_topics_drained" "audit" {
  topics    = ["audit"]
  quiet_for = "168h"
}

# Stands for the topic's owner (a kafka_topic resource of a provider that manages topics).
resource "terraform_data" "audit_retirement" {
  input = var.retire_audit_topic

  lifecycle {
    precondition {
      condition     = !var.retire_audit_topic || data.kafka_topics_drained.audit.drained
      error_message = "Topic audit is not drained: ${join("; ", data.kafka_topics_drained.audit.not_drained)}."
    }
  }
}
