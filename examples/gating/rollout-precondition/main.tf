# Stop a rollout while a consumer group still lags.
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
  topics   = ["invoices"] # only what this service consumes
}

# Stands for the deployment being rolled out (a helm_release, an ECS service, ...).
resource "terraform_data" "billing_rollout" {
  input = var.release

  lifecycle {
    precondition {
      condition     = data.kafka_consumer_group_offsets.billing.total_lag == 0
      error_message = "billing-service still lags by ${data.kafka_consumer_group_offsets.billing.total_lag} offsets on invoices; roll out once it has caught up."
    }
    precondition {
      # total_lag leaves out partitions without a commit: refuse those too.
      condition     = alltrue([for p in data.kafka_consumer_group_offsets.billing.partitions : p.committed_offset != null])
      error_message = "billing-service has never committed on some partitions of invoices."
    }
  }
}
