# Roll out only once billing-service has read everything of invoices. caught_up is never null, and
# false for a lag, a commit outside the log, or a partition without a commit where records wait.
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" } # not hashicorp/kafka: name it in every module that uses it
  }
}

data "kafka_consumer_group_offsets" "billing_invoices" {
  group_id = "billing-service"
  topics   = ["invoices"] # always in a gate: the verdict then covers every partition of the topic
}

# Stands for the deployment being rolled out (a helm_release, an ECS service, ...).
resource "terraform_data" "billing_rollout" {
  input = "billing-service v2"

  lifecycle {
    precondition {
      condition     = data.kafka_consumer_group_offsets.billing_invoices.caught_up
      error_message = "billing-service has not caught up on invoices: ${join("; ", data.kafka_consumer_group_offsets.billing_invoices.not_caught_up)}."
    }
  }
}
