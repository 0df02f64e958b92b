# Who wrote to legacy.a last, and does a transaction hang there? last_write_time is the largest
# record timestamp: it also sees producers without idempotence, which leave no producer state.
# null where no record with a timestamp is left, which says nothing of when the topic was last
# written: the gating guide's retire-drained-topic recipe gates on it, asking kafka_topic_offsets
# whether the topic is empty where it is null.
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
