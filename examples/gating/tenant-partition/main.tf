# "Has tenant 42's backlog drained?" The tenant's records all land in one partition: the one Kafka's
# default partitioner picks for its key. partition_for_key names it (Terraform 1.8+); the gate then
# reads that partition only: its offsets, and the group's lag on it.
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
  tenant_partition = provider::kafka::partition_for_key("tenant-42", data.kafka_topic_offsets.orders.partition_count)
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
  tenant_lag = one([
    for p in data.kafka_consumer_group_offsets.orders_service.partitions : p.lag if p.partition == local.tenant_partition
  ])
}

resource "terraform_data" "migrate_tenant_42" {
  input = "tenant-42 → new cluster"

  lifecycle {
    precondition {
      condition = local.tenant_lag == 0
      error_message = (local.tenant_lag == null
        ? "orders-service has no commit on orders partition ${local.tenant_partition}, tenant-42's (latest offset ${data.kafka_partition_offsets.tenant.latest_offset})."
      : "orders-service still lags ${local.tenant_lag} offsets on orders partition ${local.tenant_partition}, tenant-42's (latest offset ${data.kafka_partition_offsets.tenant.latest_offset}).")
    }
  }
}
