# "Roll out only while billing-service is less than 60 s behind": on a live topic the offset lag
# never reaches 0, so gate on time. fetch_timestamps reads the timestamp of the oldest record the
# group has not read (one Fetch per partition leader; the provider's principal needs READ on the
# topic). max_time_lag_ms is null when any partition's age is unknown (no commit where records wait,
# a commit past the log end, a record without a timestamp): the gate then blocks, saying so. A time
# lag of 0 is also what a bare terraform test mock reads, so the gate also requires exists, true on
# every read that succeeds and false on a bare mock: the absence of data never rolls out.
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {}

variable "wait_for_catch_up" {
  description = "Set only by the apply run meant to wait, e.g. terraform apply -var wait_for_catch_up=true: otherwise billing-service-v2 is read once, and every plan returns at once."
  type        = bool
  default     = false
}

data "kafka_consumer_group_offsets" "billing" {
  group_id         = "billing-service"
  topics           = ["invoices"]
  fetch_timestamps = true
}

locals {
  billing_read        = data.kafka_consumer_group_offsets.billing.exists
  billing_time_lag_ms = data.kafka_consumer_group_offsets.billing.max_time_lag_ms
}

# Stands for the deployment being rolled out.
resource "terraform_data" "billing_rollout" {
  input = "billing-service v2"

  lifecycle {
    precondition {
      # An unknown age never compares as young: null blocks, and so does a read that proved nothing.
      condition = local.billing_time_lag_ms == null ? false : local.billing_read && local.billing_time_lag_ms <= 60000
      error_message = (local.billing_time_lag_ms == null
        ? "billing-service's time lag on invoices is unknown: ${join("; ", data.kafka_consumer_group_offsets.billing.not_caught_up)}."
        : !local.billing_read
        ? "billing-service was not read on invoices (exists is false): no time lag vouched for."
      : "billing-service is ${local.billing_time_lag_ms} ms behind on invoices (allowed: 60000).")
    }
  }
}

# The same during apply: wait until the group is at most 60 s behind, and fail early (after 2
# minutes, not the whole 30) when its consumers have stopped committing. Terraform reads this data
# source during the apply that scales the old consumers down, and during every later plan: the wait
# runs only where the apply meant to wait turns it on (terraform apply -var wait_for_catch_up=true).
resource "terraform_data" "scale_down_old_consumers" {
  input = "billing-service-v1: 0 replicas"
}

data "kafka_consumer_group_offsets" "billing_v2_current" {
  group_id = "billing-service-v2"
  topics   = ["invoices"]

  wait {
    enabled       = var.wait_for_catch_up
    max_time_lag  = "60s" # alone: no condition on the offset lag, which a live topic never brings to 0
    stall_timeout = "2m"  # no commit moved for 2 minutes while behind: fail, naming the partitions
    timeout       = "30m"
  }

  depends_on = [terraform_data.scale_down_old_consumers]
}

output "billing_v2_time_lag_ms" {
  value = data.kafka_consumer_group_offsets.billing_v2_current.max_time_lag_ms
}
