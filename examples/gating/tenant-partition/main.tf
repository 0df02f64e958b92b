# "Has tenant 42's backlog drained?" The tenant's records all land in one partition: the one Kafka's
# default partitioner picks for its key. partition_for_key names it (Terraform 1.8+); the gate then
# reads that partition only: its latest offset, and the group's commit on it.
terraform {
  required_version = ">= 1.8"
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {}

data "kafka_topic_offsets" "orders" {
  topic = "orders"
}

locals {
  # A topic read has at least one partition: 0 is a bare terraform test mock's, which
  # partition_for_key refuses (an error, not the gate's refusal). Read partition 0 then: the
  # gate still blocks, since no commit on it was read.
  partition_count  = data.kafka_topic_offsets.orders.partition_count
  tenant_partition = local.partition_count > 0 ? provider::kafka::partition_for_key("tenant-42", local.partition_count) : 0
}

data "kafka_partition_offsets" "tenant" {
  topic     = "orders"
  partition = local.tenant_partition
}

data "kafka_consumer_group_offsets" "orders_service" {
  group_id = "orders-service"
  topics   = ["orders"]
}

locals {
  # The group's commit on the tenant's partition, null where it has none. Gate on the commit itself
  # rather than on the absence of an "orders/<p>: " line in not_caught_up: a missing line also
  # reads as caught up when the partition was not read at all (a mock, or a "topics not seen" line),
  # whereas a commit must be there, and equal the latest offset: no commit (even on an empty
  # partition) and a commit past the log end both block.
  tenant_commit = lookup(data.kafka_consumer_group_offsets.orders_service.committed_offsets, "orders/${local.tenant_partition}", null)
  latest_offset = data.kafka_partition_offsets.tenant.latest_offset
}

resource "terraform_data" "migrate_tenant_42" {
  input = "tenant-42 → new cluster"

  lifecycle {
    precondition {
      condition = local.tenant_commit == null ? false : local.tenant_commit == local.latest_offset
      error_message = (local.tenant_commit == null
        ? "orders-service has no commit on orders partition ${local.tenant_partition}, tenant-42's (latest offset ${local.latest_offset})."
        : local.tenant_commit > local.latest_offset
        ? "orders-service's commit ${local.tenant_commit} on orders partition ${local.tenant_partition}, tenant-42's, is past its log end (latest offset ${local.latest_offset})."
      : "orders-service still lags ${local.latest_offset - local.tenant_commit} offsets on orders partition ${local.tenant_partition}, tenant-42's (latest offset ${local.latest_offset}).")
    }
  }
}
