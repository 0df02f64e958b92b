# "Switch the schema only once the consumers have read everything produced before the producers
# were switched at cut_over_time." kafka_topic_offsets with timestamp gives, per partition, the
# first offset at or after that time: the group has read everything before it when its commit has
# reached that offset (a partition with no record since then has timestamp_offset null: everything
# in it is older, so the commit must reach latest_offset).
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {}

variable "cut_over_time" {
  description = "When the producers were switched, RFC 3339."
  type        = string
  default     = "2026-11-01T12:00:00Z"
}

data "kafka_topic_offsets" "orders_at_cut_over" {
  topic     = "orders"
  timestamp = var.cut_over_time
}

data "kafka_consumer_group_offsets" "orders" {
  group_id = "orders-service"
  topics   = ["orders"]
}

locals {
  # The offset each partition's commit must reach: the first record at or after the cut-over, or
  # the log end where no record is that late.
  cut_over_offset = {
    for p in data.kafka_topic_offsets.orders_at_cut_over.partitions :
    p.partition => coalesce(p.timestamp_offset, p.latest_offset)
  }
  # The partitions whose commit has not reached it (or that have none, or one past the log end).
  behind = [
    for p in data.kafka_consumer_group_offsets.orders.partitions :
    # coalesce: committed_offset and lag are null without a commit (Terraform evaluates both sides of ||)
    "${p.topic}/${p.partition} (committed ${coalesce(p.committed_offset, "none")}, needs ${local.cut_over_offset[p.partition]})"
    if coalesce(p.lag, -1) < 0 || coalesce(p.committed_offset, -1) < local.cut_over_offset[p.partition]
  ]
}

# Stands for the change that must wait (for example dropping the old schema).
resource "terraform_data" "drop_old_schema" {
  input = "orders schema v1 dropped"

  lifecycle {
    precondition {
      condition     = length(local.behind) == 0
      error_message = "orders-service has not yet read every record produced before ${var.cut_over_time}: ${join(", ", local.behind)}."
    }
  }
}
