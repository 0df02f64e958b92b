# "Switch the schema only once the consumers have read everything produced before the producers
# were switched at cut_over_time." kafka_partition_offsets with timestamp gives a partition's first
# offset at or after that time: the group has read everything before it when its commit has
# reached that offset (a partition with no record since then has timestamp_offset null: everything
# in it is older, so the commit must reach latest_offset). This reads one kafka_partition_offsets
# per partition (fine for tens of partitions), with top-level values only, which a terraform test
# mock can set.
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

data "kafka_topic_offsets" "orders" {
  topic = "orders"
}

data "kafka_partition_offsets" "at_cut_over" {
  for_each  = toset([for p in range(data.kafka_topic_offsets.orders.partition_count) : tostring(p)])
  topic     = "orders"
  partition = tonumber(each.key)
  timestamp = var.cut_over_time
}

data "kafka_consumer_group_offsets" "orders" {
  group_id = "orders-service"
  topics   = ["orders"]
}

locals {
  commits = data.kafka_consumer_group_offsets.orders.committed_offsets # "orders/<p>" => offset or null
  # The partitions whose commit has not reached the first record at or after the cut-over (or
  # the log end where no record is that late), that have none, or one past the log end.
  behind = [
    for p, o in data.kafka_partition_offsets.at_cut_over :
    "orders/${p} (committed ${coalesce(lookup(local.commits, "orders/${p}", null), "none")}, needs ${coalesce(o.timestamp_offset, o.latest_offset)})"
    if(lookup(local.commits, "orders/${p}", null) == null ? true
      : lookup(local.commits, "orders/${p}", null) < coalesce(o.timestamp_offset, o.latest_offset)
    || lookup(local.commits, "orders/${p}", null) > o.latest_offset)
  ]
}

# Stands for the change that must wait (for example dropping the old schema).
resource "terraform_data" "drop_old_schema" {
  input = "orders schema v1 dropped"

  lifecycle {
    precondition {
      # No partition read is no verdict: it must not pass.
      condition     = data.kafka_topic_offsets.orders.partition_count > 0 && length(local.behind) == 0
      error_message = "orders-service has not yet read every record produced before ${var.cut_over_time}: ${data.kafka_topic_offsets.orders.partition_count == 0 ? "no partition of orders was read" : join(", ", local.behind)}."
    }
  }
}
