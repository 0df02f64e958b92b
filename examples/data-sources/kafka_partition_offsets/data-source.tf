data "kafka_partition_offsets" "users_0" {
  topic     = "users"
  partition = 0
}

output "users_0" {
  value = {
    earliest = data.kafka_partition_offsets.users_0.earliest_offset
    latest   = data.kafka_partition_offsets.users_0.latest_offset
    # An offset span, not a record count: transaction markers and compaction gaps take offsets too.
    span = data.kafka_partition_offsets.users_0.latest_offset - data.kafka_partition_offsets.users_0.earliest_offset
  }
}
