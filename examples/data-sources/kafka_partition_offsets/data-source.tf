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

# Under read_committed, latest_offset is the last stable offset; timestamp_offset is where a
# consumer seeking to that time would start (null: no record that late, so at latest_offset).
data "kafka_partition_offsets" "payments_0" {
  topic           = "payments"
  partition       = 0
  isolation_level = "read_committed"
  timestamp       = "2026-11-01T00:00:00Z"
}
