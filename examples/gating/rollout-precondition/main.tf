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
  description = "Offsets billing-service may still lag by, in all. With steady traffic lag is rarely exactly 0."
  type        = number
  default     = 0
}

data "kafka_consumer_group_offsets" "billing" {
  group_id = "billing-service"
  topics   = ["invoices"] # set it in a gate: without it, a group that never committed shows no partitions
}

locals {
  billing = data.kafka_consumer_group_offsets.billing
  # Within max_lag: at most max_lag offsets behind in all, and every partition that has not caught
  # up only behind (a commit inside the log, lag above 0): no partition without a commit where
  # records wait (lag null), none with a commit past the log end (lag negative). total_lag is null
  # while a member reads without a commit; a conditional, not &&, since Terraform evaluates both
  # sides of && and refuses to compare null.
  billing_within_max_lag = local.billing.total_lag == null ? false : (
    local.billing.total_lag <= var.max_lag &&
    alltrue([for p in local.billing.partitions : p.caught_up || coalesce(p.lag, -1) > 0])
  )
}

# Stands for the deployment being rolled out (a helm_release, an ECS service, ...).
resource "terraform_data" "billing_rollout" {
  input = var.release

  lifecycle {
    precondition {
      condition     = local.billing.caught_up || local.billing_within_max_lag
      error_message = "billing-service has not caught up on invoices (allowed: ${var.max_lag} offsets of lag in all): ${join("; ", local.billing.not_caught_up)}. Roll out once it has."
    }
  }
}
