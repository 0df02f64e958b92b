# Warn, on every plan and apply, when a transaction on the orders topics holds read_committed
# consumers back for longer than it may: open past its timeout, or hanging (KIP-664's rule, as
# kafka-transactions.sh find-hanging applies it: no coordinator keeps it open). Such a transaction
# freezes the last stable offset, so no read_committed consumer gets past it, and every group's
# caught_up stays false; only an operator's kafka-transactions.sh abort ends a hanging one. A check
# block never blocks: it reports a warning.
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
