# "Roll out only while billing-service is less than 60 s behind": on a live topic the offset lag
# never reaches 0, so gate on time. fetch_timestamps reads the timestamp of the oldest record the
# group has not read (one Fetch per partition leader; the provider's principal needs READ on the
# topic); max_time_lag_ms is null when any partition's age is unknown, and Terraform then refuses
# the comparison: the gate cannot pass by accident.
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {}

data "kafka_consumer_group_offsets" "billing" {
  group_id         = "billing-service"
  topics           = ["invoices"]
  fetch_timestamps = true
}

# Stands for the deployment being rolled out.
resource "terraform_data" "billing_rollout" {
  input = "billing-service v2"

  lifecycle {
    precondition {
      condition     = data.kafka_consumer_group_offsets.billing.max_time_lag_ms <= 60000
      error_message = "billing-service is ${data.kafka_consumer_group_offsets.billing.max_time_lag_ms} ms behind on invoices (allowed: 60000)."
    }
  }
}

# The same during apply: wait until the group is at most 60 s behind, and fail early (after 2
# minutes, not the whole 30) when its consumers have stopped committing.
resource "terraform_data" "scale_down_old_consumers" {
  input = "billing-service-v1: 0 replicas"
}

data "kafka_consumer_group_offsets" "billing_v2_current" {
  group_id = "billing-service-v2"
  topics   = ["invoices"]

  wait {
    max_time_lag  = "60s" # alone: no condition on the offset lag, which a live topic never brings to 0
    stall_timeout = "2m"  # no commit moved for 2 minutes while behind: fail, naming the partitions
    timeout       = "30m"
  }

  depends_on = [terraform_data.scale_down_old_consumers]
}

output "billing_v2_time_lag_ms" {
  value = data.kafka_consumer_group_offsets.billing_v2_current.max_time_lag_ms
}
