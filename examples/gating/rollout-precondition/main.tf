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

variable "max_lag" {
  description = "Offsets billing-service may still lag by. With steady traffic lag is rarely exactly 0."
  type        = number
  default     = 0
}

data "kafka_consumer_group_offsets" "billing" {
  group_id = "billing-service"
  topics   = ["invoices"] # set it in a gate: without it, a group that never committed shows no partitions
}

# Stands for the deployment being rolled out (a helm_release, an ECS service, ...).
resource "terraform_data" "billing_rollout" {
  input = var.release

  lifecycle {
    precondition {
      condition     = data.kafka_consumer_group_offsets.billing.total_lag <= var.max_lag
      error_message = "billing-service still lags by ${data.kafka_consumer_group_offsets.billing.total_lag} offsets on invoices (allowed: ${var.max_lag}); roll out once it has caught up."
    }
    precondition {
      # A negative lag is a commit past the log end (the provider warns): the consumer will reset,
      # not resume, and total_lag leaves it out. coalesce: lag is null where there is no commit.
      condition     = alltrue([for p in data.kafka_consumer_group_offsets.billing.partitions : coalesce(p.lag, 0) >= 0])
      error_message = "billing-service has committed past the log end of some partitions of invoices (negative lag): its consumers will reset per auto.offset.reset."
    }
    precondition {
      # total_lag leaves out partitions without a commit: refuse those too.
      condition     = alltrue([for p in data.kafka_consumer_group_offsets.billing.partitions : p.committed_offset != null])
      error_message = "billing-service has never committed on some partitions of invoices."
    }
  }
}
