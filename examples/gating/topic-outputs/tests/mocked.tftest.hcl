# Unit tests of the outputs: no broker, the offsets set by a mock. partitions (a nested list) cannot
# be overridden (hashicorp/terraform#37939): by_partition stays empty here; the broker test fills it.
mock_provider "kafka" {}

run "a_bare_mock_says_zero" {
  command = plan
  assert {
    condition     = output.payments.partitions == 0 && output.payments.message_count == 0 && length(output.payments.by_partition) == 0
    error_message = "a bare mock's numbers are 0 and its lists empty"
  }
}

run "prints_the_offsets" {
  command = plan
  override_data {
    target = data.kafka_topic_offsets.payments
    values = { partition_count = 3, message_count = 42 }
  }
  override_data {
    target = data.kafka_partition_offsets.payments_0_yesterday
    values = { timestamp_offset = 17 }
  }
  assert {
    condition     = output.payments.partitions == 3 && output.payments.message_count == 42
    error_message = "the output should print the topic's counts"
  }
  assert {
    condition     = output.payments.replay_from_yesterday == 17
    error_message = "the output should print where a replay from yesterday starts"
  }
}

# No record on partition 0 in the last 24 hours: null, not 0.
run "nothing_that_recent" {
  command = plan
  override_data {
    target = data.kafka_partition_offsets.payments_0_yesterday
    values = { timestamp_offset = null }
  }
  assert {
    condition     = output.payments.replay_from_yesterday == null
    error_message = "replay_from_yesterday should be null"
  }
}
