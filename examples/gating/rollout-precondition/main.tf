# Stop a rollout while a consumer group has not caught up. (On a live topic, where the lag never
# reaches 0, gate on time instead: the live-topic-time-lag recipe.)
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {} # bootstrap_servers from KAFKA_BOOTSTRAP_SERVERS

variable "release" {
  description = "The version to roll out."
  type        = string
}

data "kafka_consumer_group_offsets" "billing" {
  group_id = "billing-service"
  topics   = ["invoices"] # set it in a gate: the verdict then covers every partition of the topic
}

# Stands for the deployment being rolled out (a helm_release, an ECS service, ...).
resource "terraform_data" "billing_rollout" {
  input = var.release

  lifecycle {
    precondition {
      # caught_up is never null, and false for anything the cluster does not vouch for: a lag, a
      # commit outside the log, a partition without a commit where records wait.
      condition     = data.kafka_consumer_group_offsets.billing.caught_up
      error_message = "billing-service has not caught up on invoices: ${join("; ", data.kafka_consumer_group_offsets.billing.not_caught_up)}. Roll out once it has."
    }
  }
}
