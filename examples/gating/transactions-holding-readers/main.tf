# Warn, on every plan and apply, when a transaction on the orders topics hangs (KIP-664's rule, as
# kafka-transactions.sh find-hanging applies it: open on a partition while its coordinator does not
# hold it there, so no marker will end it). Such a transaction freezes the last stable offset, so no
# read_committed consumer gets past it, and every group's caught_up stays false until an operator
# aborts it with kafka-transactions.sh abort. One its coordinator holds is not hanging, however old:
# past its timeout the coordinator aborts it itself. A check block never blocks: it reports a
# warning.
terraform {
  required_providers {
    kafka = { source = "kafka-offsets/kafka" }
  }
}

provider "kafka" {}

check "no_transaction_holds_orders_readers" {
  data "kafka_topic_producers" "orders" {
    name_regex = "orders(\\..*)?" # orders and orders.*
  }

  assert {
    condition     = data.kafka_topic_producers.orders.hanging_transactions == 0
    error_message = "Transactions hold read_committed readers of ${join(", ", [for t in data.kafka_topic_producers.orders.selected_topics : t.name if t.hanging_transactions > 0])} back (${data.kafka_topic_producers.orders.held_records} offsets held): ${join("; ", [for t in data.kafka_topic_producers.orders.transactions : "${coalesce(t.transactional_id, "producer ${t.producer_id}")}: ${t.hanging_reason == null ? "" : t.hanging_reason}" if t.hanging])}."
  }
}
