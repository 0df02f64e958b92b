# Who wrote to legacy.a last, and does a transaction hang there? last_write_time is the largest
# record timestamp, records deleted since included: it also sees producers without idempotence,
# which leave no producer state. null where nothing was ever written, and where records of no
# known time are left. To gate a retirement on it, read kafka_topics_drained's one verdict.
data "kafka_topic_producers" "legacy_a" {
  topics = ["legacy.a"]
}

output "legacy_a_writers" {
  value = {
    last_write_time      = data.kafka_topic_producers.legacy_a.last_write_time
    hanging_transactions = data.kafka_topic_producers.legacy_a.hanging_transactions
    hanging_reasons      = [for t in data.kafka_topic_producers.legacy_a.transactions : t.hanging_reason if t.hanging]
  }
}

# Which transactions hold read_committed consumers of "orders.*" back, and who writes there.
data "kafka_topic_producers" "orders" {
  name_regex = "orders\\..*"
}

output "orders_writers" {
  value = {
    held_records = data.kafka_topic_producers.orders.held_records
    transactions = [for t in data.kafka_topic_producers.orders.transactions : {
      transactional_id = t.transactional_id
      state            = t.state
      hanging          = t.hanging
    }]
    producer_ids = distinct(flatten([for topic in data.kafka_topic_producers.orders.selected_topics :
    [for p in topic.partitions : p.producers[*].producer_id]]))
  }
}
