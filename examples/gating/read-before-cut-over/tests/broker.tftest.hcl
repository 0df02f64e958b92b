# On the broker, as TestAccRecipeBroker_readBeforeCutOver arranges it: orders has, on partition 0,
# records 20 and 10 minutes before var.cut_over_time and 5 and 10 minutes after it (offsets 0 to
# 3), on partition 1 one record 15 minutes before it; orders-service has committed at 2 and 1.
run "read_up_to_the_cut_over_passes" {
  command = plan
  assert {
    condition     = data.kafka_topic_offsets.orders.partition_count == 2
    error_message = "orders should have 2 partitions"
  }
  assert {
    condition     = data.kafka_partition_offsets.at_cut_over["0"].timestamp_offset == 2 && data.kafka_partition_offsets.at_cut_over["0"].latest_offset == 4
    error_message = "partition 0's first record at or after the cut-over should be offset 2, its log end 4"
  }
  assert {
    condition     = data.kafka_partition_offsets.at_cut_over["1"].timestamp_offset == null && data.kafka_partition_offsets.at_cut_over["1"].latest_offset == 1
    error_message = "partition 1 should have no record since the cut-over, its log end 1"
  }
  assert {
    condition     = data.kafka_consumer_group_offsets.orders.committed_offsets == tomap({ "orders/0" = 2, "orders/1" = 1 })
    error_message = "orders-service should have committed at 2 and 1"
  }
  assert {
    condition     = length(local.behind) == 0
    error_message = "no partition should be behind"
  }
}

# 7 minutes later, the record 5 minutes after the first cut-over (offset 2) is before it: partition
# 0's commit must reach 3.
run "later_cut_over_blocks" {
  command = plan
  variables {
    # The Go test writes the arranged cut-over + 7m here: Terraform 1.16 and OpenTofu parse a
    # -var value as an expression once a test file refers to it (var.cut_over_time).
    cut_over_time = "CUT_OVER_TIME_PLUS_7M"
  }
  assert {
    condition     = local.behind == ["orders/0 (committed 2, needs 3)"]
    error_message = "partition 0 alone should be behind, needing 3"
  }
  expect_failures = [terraform_data.drop_old_schema]
}
