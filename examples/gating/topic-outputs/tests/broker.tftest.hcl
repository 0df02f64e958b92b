# Against a broker, no mocks: TestAccRecipeBroker_topicOutputs arranges payments (3 partitions: on
# partition 0 records 48, 2 and 1 hours old; on partition 1 two records, the first deleted;
# partition 2 empty).
run "prints_the_offsets" {
  command = plan
  assert {
    condition     = output.payments.partitions == 3 && output.payments.message_count == 4
    error_message = "payments has 3 partitions and 4 records: ${jsonencode(output.payments)}"
  }
  assert {
    condition     = output.payments.by_partition["0"] == "0..3" && output.payments.by_partition["1"] == "1..2" && output.payments.by_partition["2"] == "0..0"
    error_message = "by_partition: ${jsonencode(output.payments.by_partition)}"
  }
  assert {
    condition     = output.payments.replay_from_yesterday == 1
    error_message = "a replay from 24 hours ago starts at offset 1 of partition 0, not ${jsonencode(output.payments.replay_from_yesterday)}"
  }
}
