# Every topic whose whole name starts with "orders.": one Metadata request and one ListOffsets
# request per broker and lookup, however many topics match.
data "kafka_topics_offsets" "orders" {
  name_regex = "orders\\..*"
}

output "orders_topics_empty" {
  # false where no topic matches (message_counts is then {}): an empty selection proves nothing.
  value = length(data.kafka_topics_offsets.orders.message_counts) > 0 && length(data.kafka_topics_offsets.orders.topics_with_records) == 0
}

output "orders_topics_with_records" {
  value = data.kafka_topics_offsets.orders.topics_with_records
}
