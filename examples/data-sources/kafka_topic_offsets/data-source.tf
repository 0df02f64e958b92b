data "kafka_topic_offsets" "orders" {
  topic = "orders"
}

output "orders_empty" {
  # message_count is the sum of latest - earliest: 0 exactly when every partition is empty.
  value = data.kafka_topic_offsets.orders.message_count == 0
}

output "orders_partitions" {
  value = {
    for p in data.kafka_topic_offsets.orders.partitions : p.partition => {
      earliest = p.earliest_offset
      latest   = p.latest_offset
    }
  }
}
