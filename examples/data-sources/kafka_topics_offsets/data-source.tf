# Every topic whose whole name starts with "orders.": one Metadata request and one ListOffsets
# request per broker and lookup, however many topics match.
data "kafka_topics_offsets" "orders" {
  name_regex = "orders\\..*"
}

output "orders_topics_empty" {
  # false where no topic matches: alltrue([]) alone is true.
  value = length(data.kafka_topics_offsets.orders.topics) > 0 && alltrue([for t in data.kafka_topics_offsets.orders.topics : t.message_count == 0])
}

output "orders_topics_with_records" {
  value = [for t in data.kafka_topics_offsets.orders.topics : t.name if t.message_count > 0]
}
