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
    isolation_level = "read_committed" # transactional producer: lag up to the last stable offset
    # (records held behind an open transaction still keep caught_up false, naming it)
  }

  assert {
    # caught_up is never null, and false for anything the cluster does not vouch for: a lag, a
    # commit outside the log, a partition without a commit where records wait, records held
    # behind an open transaction. not_caught_up
    # says which partitions and why (never null: safe in a message).
    condition     = data.kafka_consumer_group_offsets.orders.caught_up
    error_message = "orders-service has not caught up on orders (state ${data.kafka_consumer_group_offsets.orders.state}): ${join("; ", data.kafka_consumer_group_offsets.orders.not_caught_up)}."
  }
}
