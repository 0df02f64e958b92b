# Warn, on every plan and apply, when a consumer group has not caught up. A check block never
# blocks: it reports a warning. Its scoped data source is read only for the check.
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {}

check "orders_consumer_caught_up" {
  data "kafka_consumer_group_offsets" "orders" {
    group_id        = "orders-service"
    topics          = ["orders"]
    isolation_level = "read_committed" # the producer is transactional: lag up to the last stable offset
  }

  assert {
    condition     = data.kafka_consumer_group_offsets.orders.total_lag == 0
    error_message = "orders-service lags by ${data.kafka_consumer_group_offsets.orders.total_lag} offsets (state ${data.kafka_consumer_group_offsets.orders.state})."
  }

  assert {
    # A negative lag is a commit past the log end: not caught up, and left out of total_lag.
    condition     = alltrue([for p in data.kafka_consumer_group_offsets.orders.partitions : coalesce(p.lag, 0) >= 0])
    error_message = "orders-service has committed past the log end (negative lag) on ${join(", ", [for p in data.kafka_consumer_group_offsets.orders.partitions : "${p.topic}/${p.partition}" if coalesce(p.lag, 0) < 0])}."
  }
}
